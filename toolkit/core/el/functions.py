"""Falcon's EL functions, evaluated from a nominal time in a zone.

Each function truncates first (to the day, the week day, the month or the year, in the zone), then
adds years, months and days as calendar units, then hours and minutes as elapsed time, in that order.
Day and month arguments are 0-based offsets and may be negative or overflow: `currentMonth(0,0,0)` is
the 1st at midnight, `yesterday(24,30)` is 00:30 today (on a day without a DST change).
`latest` and `future` pick among the available instances; a result that is no instance is None, and
every function given None returns None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from toolkit.core.el.calendar import add_days, add_months, start_of_day, start_of_month, start_of_year
from toolkit.core.el.context import ELContext
from toolkit.core.el.java_format import format_java
from toolkit.core.el.timezones import from_local, to_local
from toolkit.errors import UsageError

TIME, INT, TEXT = "time", "int", "text"
WEEK_DAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
OFFSET_UNITS = ("MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "YEAR")


@dataclass(frozen=True)
class Function:
    """An EL function: its parameters (name, type) for checking and messages, and its result type."""

    name: str
    params: tuple[tuple[str, str], ...]
    returns: str
    impl: Callable[..., datetime | str | int | None]
    needs_available: bool = False

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(name for name, _ in self.params)})"


def _from_wall(ctx: ELContext, wall: datetime, months: int = 0, days: int = 0, hours: int = 0,
               minutes: int = 0) -> datetime:
    """Calendar moves on the wall clock, then elapsed hours and minutes on the instant."""
    moved = add_days(add_months(wall, months), days)
    return from_local(moved, ctx.zone) + timedelta(hours=hours, minutes=minutes)


def _local(ctx: ELContext) -> datetime:
    return to_local(ctx.nominal, ctx.zone)


def now(ctx: ELContext, hours: int, minutes: int) -> datetime:
    return ctx.nominal + timedelta(hours=hours, minutes=minutes)


def today(ctx: ELContext, hours: int, minutes: int) -> datetime:
    return _from_wall(ctx, start_of_day(_local(ctx)), hours=hours, minutes=minutes)


def yesterday(ctx: ELContext, hours: int, minutes: int) -> datetime:
    return _from_wall(ctx, start_of_day(_local(ctx)), days=-1, hours=hours, minutes=minutes)


def check_week_day(name: str) -> int:
    """The weekday number (Monday 0) of SUN..SAT; anything else is an error."""
    if name not in WEEK_DAYS:
        raise UsageError(f"Invalid week day {name!r}: use one of SUN, MON, TUE, WED, THU, FRI, SAT.")
    return WEEK_DAYS.index(name)


def _week(ctx: ELContext, day: str, weeks_back: int, hours: int, minutes: int) -> datetime:
    """The most recent `day` (today included) at midnight, `weeks_back` weeks earlier, then hours, minutes."""
    local = start_of_day(_local(ctx))
    back = (local.weekday() - check_week_day(day)) % 7 + 7 * weeks_back
    return _from_wall(ctx, local, days=-back, hours=hours, minutes=minutes)


def current_week(ctx: ELContext, day: str, hours: int, minutes: int) -> datetime:
    return _week(ctx, day, 0, hours, minutes)


def last_week(ctx: ELContext, day: str, hours: int, minutes: int) -> datetime:
    return _week(ctx, day, 1, hours, minutes)


def current_month(ctx: ELContext, days: int, hours: int, minutes: int) -> datetime:
    return _from_wall(ctx, start_of_month(_local(ctx)), days=days, hours=hours, minutes=minutes)


def last_month(ctx: ELContext, days: int, hours: int, minutes: int) -> datetime:
    return _from_wall(ctx, start_of_month(_local(ctx)), months=-1, days=days, hours=hours, minutes=minutes)


def current_year(ctx: ELContext, months: int, days: int, hours: int, minutes: int) -> datetime:
    return _from_wall(ctx, start_of_year(_local(ctx)), months=months, days=days, hours=hours, minutes=minutes)


def last_year(ctx: ELContext, months: int, days: int, hours: int, minutes: int) -> datetime:
    return _from_wall(ctx, start_of_year(_local(ctx)), months=months - 12, days=days, hours=hours,
                      minutes=minutes)


def _available(ctx: ELContext, name: str) -> list[datetime]:
    """The available instances, on the feed's grid when there is one, sorted and unique."""
    if ctx.available is None:
        raise UsageError(
            f"{name}() picks among the available instances of the feed: pass them (--available) "
            "or resolve it at run time against storage."
        )
    grid = ctx.grid
    if grid is None:
        return sorted(set(ctx.available))
    return sorted({t for t in ctx.available if grid.contains(t)})


def latest(ctx: ELContext, n: int) -> datetime | None:
    """`latest(0)`: the newest available instance at or before the nominal time; `latest(-1)` the one before."""
    if n > 0:
        raise UsageError(f"latest({n}) looks forward: latest takes 0 or a negative number; use future(n, limit).")
    candidates = [t for t in _available(ctx, "latest") if t <= ctx.nominal]
    return candidates[n - 1] if len(candidates) >= 1 - n else None


def future(ctx: ELContext, n: int, limit: int) -> datetime | None:
    """The n-th (0-based) available instance at or after the nominal time, among the next `limit` instances."""
    if n < 0 or limit < 1:
        raise UsageError(f"future({n}, {limit}) needs n >= 0 and a limit of at least 1 instance.")
    grid = ctx.grid
    if grid is None:
        raise UsageError("future() counts its limit in instances of the feed: give the feed's frequency and start.")
    first = grid.at_or_after(ctx.nominal)
    if first is None:
        return None
    lowest = grid.floor_index(first)
    candidates = [t for t in _available(ctx, "future") if 0 <= grid.floor_index(t) - lowest < limit and t >= first]
    return candidates[n] if len(candidates) > n else None


def instance_time(ctx: ELContext) -> datetime:
    return ctx.nominal


def check_offset_unit(unit: str) -> str:
    """The unit of dateOffset, upper case; anything but MINUTE, HOUR, DAY, WEEK, MONTH, YEAR is an error."""
    if unit.upper() not in OFFSET_UNITS:
        raise UsageError(f"Invalid unit {unit!r} in dateOffset: use one of {', '.join(OFFSET_UNITS)}.")
    return unit.upper()


def date_offset(ctx: ELContext, t: datetime, n: int, unit: str) -> datetime:
    """t moved by n units: MINUTE and HOUR elapsed; DAY, WEEK, MONTH, YEAR on the calendar of the zone."""
    unit = check_offset_unit(unit)
    if unit in ("MINUTE", "HOUR"):
        return t + timedelta(minutes=n * (60 if unit == "HOUR" else 1))
    wall = to_local(t, ctx.zone)
    if unit in ("DAY", "WEEK"):
        return _from_wall(ctx, wall, days=n * (7 if unit == "WEEK" else 1))
    return _from_wall(ctx, wall, months=n * (12 if unit == "YEAR" else 1))


def format_time(ctx: ELContext, t: datetime, pattern: str) -> str:
    return format_java(t.astimezone(ctx.zone), pattern)


FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        Function("now", (("hours", INT), ("minutes", INT)), TIME, now),
        Function("today", (("hours", INT), ("minutes", INT)), TIME, today),
        Function("yesterday", (("hours", INT), ("minutes", INT)), TIME, yesterday),
        Function("currentWeek", (("day", TEXT), ("hours", INT), ("minutes", INT)), TIME, current_week),
        Function("lastWeek", (("day", TEXT), ("hours", INT), ("minutes", INT)), TIME, last_week),
        Function("currentMonth", (("days", INT), ("hours", INT), ("minutes", INT)), TIME, current_month),
        Function("lastMonth", (("days", INT), ("hours", INT), ("minutes", INT)), TIME, last_month),
        Function("currentYear", (("months", INT), ("days", INT), ("hours", INT), ("minutes", INT)), TIME,
                 current_year),
        Function("lastYear", (("months", INT), ("days", INT), ("hours", INT), ("minutes", INT)), TIME, last_year),
        Function("latest", (("n", INT),), TIME, latest, needs_available=True),
        Function("future", (("n", INT), ("limit", INT)), TIME, future, needs_available=True),
        Function("instanceTime", (), TIME, instance_time),
        Function("dateOffset", (("time", TIME), ("n", INT), ("unit", TEXT)), TIME, date_offset),
        Function("formatTime", (("time", TIME), ("pattern", TEXT)), TEXT, format_time),
    )
}
