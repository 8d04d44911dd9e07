"""The clock a run reads and waits with: one protocol for the process runner and the workflow engines that wait
for another server's job, so that a test passes one clock that moves without waiting to both, and the rerun's
`--now` moves both alike."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Protocol


class Clock(Protocol):
    """`now` an aware datetime; `sleep` the pause between two polls, which a test's clock may only count."""

    def now(self) -> datetime: ...

    def sleep(self, seconds: float) -> None: ...


class WallClock:
    """The real clock; `start` moves it (the `--now` of a rerun or a test), real time still passing."""

    def __init__(self, start: datetime | None = None) -> None:
        self._offset = (start - datetime.now(timezone.utc)) if start is not None else None

    def now(self) -> datetime:
        now = datetime.now(timezone.utc)
        return now + self._offset if self._offset is not None else now

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)
