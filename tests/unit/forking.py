"""Forked workers allowed in a unit test, whatever runs it (a pytest-xdist worker has threads of its own, and the CI
machine's cores are counted), and the calls this process made itself: what a worker computes is not counted here, so a
test can tell that the workers' results were used rather than computed again (toolkit/forked_map.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from toolkit import forked_map


def allow_forks(monkeypatch: pytest.MonkeyPatch, cores: int = 2) -> list[int]:
    """`cores` cores (1: no fork) and one thread from now on in this test; the pids of the workers `forked_map` forks
    (the list fills as it forks)."""
    monkeypatch.setattr(forked_map.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(forked_map, "_MOST_WORKERS", max(cores, 1))
    monkeypatch.setattr(forked_map.threading, "active_count", lambda: 1)
    workers: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            workers.append(pid)
        return pid

    monkeypatch.setattr(forked_map.os, "fork", counted)
    return workers


def calls_here(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> list[int]:
    """A list that grows by one for each call of `module.name` made by this process (not by a forked worker)."""
    here, made = os.getpid(), []
    function: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() == here:
            made.append(1)
        return function(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return made
