"""The clock a run reads and waits with: one protocol for every action (its `RunContext.clock`: the stamps of the
records an import, an export, ingest and compaction write, their waits) and for the process runner and the workflow
engines that wait for another server's job, so that a test passes one clock that moves without waiting to all of
them, and the rerun's `--now` moves them alike."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Protocol


class Clock(Protocol):
    """`now` an aware datetime, `time` the same instant in seconds since the epoch (what records stamp and files'
    modification times are compared with); `sleep` the pause between two polls, which a test's clock may only
    count."""

    def now(self) -> datetime: ...

    def time(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class WallClock:
    """The real clock; `start` moves it (the `--now` of a rerun or a test), real time still passing."""

    def __init__(self, start: datetime | None = None) -> None:
        self._offset = (start - datetime.now(timezone.utc)) if start is not None else None

    def now(self) -> datetime:
        now = datetime.now(timezone.utc)
        return now + self._offset if self._offset is not None else now

    def time(self) -> float:
        now = time.time()
        return now + self._offset.total_seconds() if self._offset is not None else now

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)
