"""The JVMs this process's descendants start while a test runs, seen in Linux's /proc: a child Python that builds its
own SparkSession (a killed run), a `toolkit` CLI whose sweep starts spark-submit. The audit hook of
tests/integration/tiers.py sees only the programs the test process itself starts; this sees their children too.

A JVM lives for seconds, so a look every half second sees each; the JVMs already running when the watch starts (the
shared session's, the servers') and those it is told to forget (a server started meanwhile) are not counted.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_EVERY = 0.5  # seconds between two looks
# Processes of the run, not of a test, whose JVMs are never a test's (the class-data archive's maker,
# tests/integration/jvm_archive.py): neither they nor their descendants are looked into.
IGNORED: set[int] = set()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found.extend(int(child) for child in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return found


def _is_java(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "java"
    except OSError:
        return False


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:300]
    except OSError:
        return "?"


def java_descendants(known: set[int]) -> dict[int, str]:
    """The java processes below this one that are not in `known` (whose own children are not looked into)."""
    found: dict[int, str] = {}
    stack = _children(os.getpid())
    while stack:
        pid = stack.pop()
        if pid in known or pid in IGNORED:
            continue
        if _is_java(pid):
            found[pid] = _command(pid)
            continue
        stack.extend(_children(pid))
    return found


class JvmWatch:
    """Looks every half second, from a thread, for a new JVM below this process until stopped."""

    def __init__(self) -> None:
        self._known = set(java_descendants(set()))
        self._seen: dict[int, str] = {}
        self._lock = threading.Lock()
        self._paused = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="jvm-watch", daemon=True)
        self._thread.start()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """While a server that is not the test's starts: the JVMs running at the end are not counted."""
        with self._lock:
            self._paused += 1
        try:
            yield
        finally:
            with self._lock:
                self._paused -= 1
                self._known |= set(java_descendants(self._known))
                self._seen = {pid: command for pid, command in self._seen.items() if pid not in self._known}

    def _look(self) -> None:
        with self._lock:
            if not self._paused:
                self._seen.update(java_descendants(self._known))

    def _watch(self) -> None:
        while not self._stop.wait(_EVERY):
            self._look()

    def stop(self) -> dict[int, str]:
        """Stop watching; the new JVMs seen (pid: command line)."""
        self._stop.set()
        self._thread.join()
        self._look()
        return self._seen
