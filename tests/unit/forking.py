"""Forked workers allowed in a unit test, whatever runs it (a pytest-xdist worker has threads of its own, and the CI
machine's cores are counted): two cores, one thread, and the pids of the workers forked (toolkit/forked_map.py)."""

from __future__ import annotations

import os

import pytest

from toolkit import forked_map


def allow_forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the workers that `forked_map` forks from now on in this test (the list fills as it forks)."""
    monkeypatch.setattr(forked_map.os, "cpu_count", lambda: 2)
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
