"""The instance grid of an entity: `start + k * frequency`, k >= 0, strictly before the validity end.

Every lookup is closed-form: the index of a time comes from one division (elapsed units) or one
difference of calendar days or months, then at most a couple of corrections. Nothing walks from the
start, so a time 80 years after the start costs what a time next to it costs.

Calendar units (days, months) step the start's wall-clock time in the grid's zone; each instance is
converted to an instant on its own by the DST rule of `timezones`. Months keep the start's day of
month, clamped to each month's end independently (Jan 31, Feb 28, Mar 31, Apr 30).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from toolkit.core.el.calendar import add_days, add_months, month_index
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import UTC, from_local, to_local
from toolkit.errors import UsageError

_START_OF_TIME = datetime.min.replace(tzinfo=UTC)
_END_OF_TIME = datetime.max.replace(tzinfo=UTC)
_LAST_WALL_TIME = datetime(9999, 12, 31, 23, 59)


@dataclass(frozen=True)
class InstanceGrid:
    """Instances of an entity; `end` (exclusive) None means open-ended."""

    start: datetime
    frequency: Frequency
    zone: ZoneInfo = field(default=ZoneInfo("UTC"))
    end: datetime | None = None
    # Derived in __post_init__: the start's wall-clock time in the zone, and the step in seconds (None for
    # calendar units, whose length varies).
    _local_start: datetime = field(init=False, repr=False, compare=False)
    _step: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise ValueError(f"InstanceGrid.{name} must be an aware datetime, got {value!r}")
        # Normalise to UTC once: comparisons and arithmetic below are then plain.
        object.__setattr__(self, "start", self.start.astimezone(UTC))
        if self.end is not None:
            object.__setattr__(self, "end", self.end.astimezone(UTC))
        object.__setattr__(self, "_local_start", to_local(self.start, self.zone))
        object.__setattr__(self, "_step", self.frequency.elapsed_seconds)

    # -- unbounded arithmetic (k may be negative or beyond the end) -------------------------------

    def time_of(self, k: int) -> datetime:
        """The instant of instance number k (k = 0 is the start)."""
        step = self._step
        if step is not None:
            return self.start + timedelta(seconds=step * k)
        if k == 0:
            return self.start  # may be the second of a repeated wall-clock time, which from_local cannot name
        count = self.frequency.count * k
        if self.frequency.unit is TimeUnit.DAYS:
            return from_local(add_days(self._local_start, count), self.zone)
        return from_local(add_months(self._local_start, count), self.zone)

    def _time_or_edge(self, k: int) -> datetime:
        """time_of(k), or the end of time on that side when k lies beyond the years 1 to 9999."""
        try:
            return self.time_of(k)
        except (OverflowError, ValueError):
            return _END_OF_TIME if k > 0 else _START_OF_TIME

    def floor_index(self, t: datetime) -> int:
        """The largest k with time_of(k) <= t (negative when t is before the start)."""
        step = self._step
        if step is not None:
            # Whole seconds in integers: floor(floor(x) / n) == floor(x / n), and a step of any size works.
            delta = t - self.start
            return (delta.days * 86400 + delta.seconds) // step
        try:
            local = to_local(t, self.zone)
        except OverflowError:  # t's wall-clock time in the zone is past the year 9999 (or before the year 1)
            if t < self.start:
                return -1
            return self.floor_index(from_local(_LAST_WALL_TIME, self.zone))
        if self.frequency.unit is TimeUnit.DAYS:
            units = (local.date() - self._local_start.date()).days
        else:
            units = month_index(local) - month_index(self._local_start)
        k = units // self.frequency.count
        # The estimate is off by at most one or two: an earlier time of day or a DST shift makes it too
        # large; a fall-back at midnight (the local day repeats its last hour) can make it too small.
        while self._time_or_edge(k) > t:
            k -= 1
        while self._time_or_edge(k + 1) <= t:
            k += 1
        return k

    # -- the grid proper: 0 <= k and time_of(k) < end ------------------------------------------------

    @property
    def last_index(self) -> int | None:
        """Index of the last instance before `end`; None when open-ended; -1 when the grid is empty."""
        if self.end is None:
            return None
        k = self.floor_index(self.end)
        return k - 1 if self.time_of(k) >= self.end else k

    def _in_grid(self, k: int) -> bool:
        last = self.last_index
        return k >= 0 and (last is None or k <= last)

    def at_or_before(self, t: datetime) -> datetime | None:
        """The newest instance at or before t, or None when t is before the first instance (after the
        validity end, the last instance)."""
        k = self.floor_index(t)
        last = self.last_index
        if last is not None:
            k = min(k, last)
        return self.time_of(k) if k >= 0 else None

    def at_or_after(self, t: datetime) -> datetime | None:
        """The oldest instance at or after t, or None when t is after the last instance."""
        k = self.floor_index(t)
        if k < 0:
            k = 0
        elif self.time_of(k) < t:
            k += 1
        if not self._in_grid(k):
            return None
        instance = self._time_or_edge(k)
        return None if instance is _END_OF_TIME else instance

    def index_of(self, t: datetime) -> int | None:
        """k when t is exactly instance k of the grid, else None."""
        k = self.floor_index(t)
        return k if self._in_grid(k) and self.time_of(k) == t else None

    def contains(self, t: datetime) -> bool:
        return self.index_of(t) is not None

    def between(self, first: datetime, last: datetime) -> Iterator[datetime]:
        """Instances t with first <= t <= last, oldest first; the cost is that of the instances yielded."""
        begin = self.at_or_after(first)
        if begin is None or begin > last:
            return
        k = self.floor_index(begin)
        stop = self.floor_index(last)
        end_index = self.last_index
        if end_index is not None:
            stop = min(stop, end_index)
        if self._step is None:
            for i in range(k, stop + 1):
                yield self.time_of(i)
            return
        step, t = timedelta(seconds=self._step), self.time_of(k)  # a year of hours: one addition each
        for _ in range(k, stop + 1):
            yield t
            t += step

    def count_between(self, first: datetime, last: datetime) -> int:
        """How many instances lie in [first, last], without producing them."""
        begin = self.at_or_after(first)
        if begin is None or begin > last:
            return 0
        stop = self.floor_index(last)
        end_index = self.last_index
        if end_index is not None:
            stop = min(stop, end_index)
        return max(0, stop - self.floor_index(begin) + 1)


def require_instance(grid: InstanceGrid, t: datetime, what: str) -> int:
    """The index of t on the grid, or a UsageError naming the instances around it."""
    k = grid.index_of(t)
    if k is not None:
        return k
    before, after = grid.at_or_before(t), grid.at_or_after(t)
    around = ", ".join(
        f"{label} {format_timestamp(value)}" for label, value in (("before", before), ("after", after)) if value
    )
    raise UsageError(
        f"{format_timestamp(t)} is not an instance of {what}"
        + (f"; the nearest instances are {around}." if around else "; it has no instances.")
    )
