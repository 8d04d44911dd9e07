"""Turning command-line text into values: times, zones, frequencies, time lists. Errors are UsageErrors.

A `--time` left out is read from the clock by `runtime.times.nominal_time`, the one place that reads it.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.errors import UsageError

TIME_HELP = "Nominal time, yyyy-MM-ddTHH:mmZ (UTC). Default: now, rounded down to the minute."
ZONE_HELP = "IANA time zone in which calendar units and dates are counted."


def time_list(text: str | None, option: str) -> tuple[datetime, ...] | None:
    """`T1,T2,...` -> times; None when the option was not given (an empty text is an empty list)."""
    if text is None:
        return None
    return tuple(parse_timestamp(item, option) for item in text.split(",") if item.strip())


def zone(name: str) -> ZoneInfo:
    return resolve_zone(name)


def grid(start: str, frequency: str, zone_name: str, end: str | None, prefix: str = "--") -> InstanceGrid:
    """The grid described by `--start/--frequency/--timezone/--end`-style options."""
    start_time = parse_timestamp(start, f"{prefix}start")
    end_time = parse_timestamp(end, f"{prefix}end") if end is not None else None
    if end_time is not None and end_time < start_time:
        raise UsageError(f"{prefix}end {end} is before {prefix}start {start}: give an end after the start.")
    return InstanceGrid(start_time, Frequency.parse(frequency), resolve_zone(zone_name), end_time)
