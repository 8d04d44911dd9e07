"""Calendar arithmetic on wall-clock times: whole months with end-of-month clamping, truncations.

All functions take and return naive wall-clock datetimes of one zone; converting to instants is the
caller's job (`timezones.from_local`), so the DST rule lives in one place.
"""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta


def add_months(wall: datetime, months: int) -> datetime:
    """`wall` moved by whole months, its day clamped to the target month's last day (Jan 31 + 1 = Feb 28/29)."""
    index = wall.year * 12 + (wall.month - 1) + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise OverflowError(f"{months} months from {wall:%Y-%m-%d} is outside the years 1 to 9999")
    day = min(wall.day, calendar.monthrange(year, month + 1)[1])
    return wall.replace(year=year, month=month + 1, day=day)


def add_days(wall: datetime, days: int) -> datetime:
    """`wall` moved by calendar days; the wall-clock time of day is kept."""
    return wall + timedelta(days=days)


def month_index(wall: datetime) -> int:
    """Months since year 0, so that month differences are a subtraction."""
    return wall.year * 12 + wall.month - 1


def start_of_day(wall: datetime) -> datetime:
    return wall.replace(hour=0, minute=0, second=0, microsecond=0)


def start_of_month(wall: datetime) -> datetime:
    return start_of_day(wall).replace(day=1)


def start_of_year(wall: datetime) -> datetime:
    return start_of_month(wall).replace(month=1)
