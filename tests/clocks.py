"""A clock for tests of the actions (`RunContext.clock`, toolkit/clock.py): stopped at the instant the test sets,
moved by its sleeps without waiting."""

from __future__ import annotations

from datetime import datetime, timezone


class StoppedClock:
    """Stopped at `seconds` since the epoch; `sleep` moves it on at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.seconds, timezone.utc)

    def time(self) -> float:
        return self.seconds

    def sleep(self, seconds: float) -> None:
        self.seconds += seconds
