"""An instant moved by a frequency-like amount (a retention limit, a delay, a timeout).

Minutes and hours are elapsed time; days and months are calendar units in the zone, so `days(1)` across a
DST change is 23 or 25 hours and `months(1)` from Jan 31 lands on Feb 28/29 (the DST rule is timezones').
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from toolkit.core.el.calendar import add_days, add_months
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.timezones import from_local, to_local


def shift(t: datetime, amount: Frequency, zone: ZoneInfo, sign: int) -> datetime:
    """t moved by `amount` (sign -1 back, +1 forward), calendar units counted in `zone`."""
    if amount.elapsed_seconds is not None:
        return t + sign * timedelta(seconds=amount.elapsed_seconds)
    wall = to_local(t, zone)
    if amount.unit is TimeUnit.DAYS:
        return from_local(add_days(wall, sign * amount.count), zone)
    return from_local(add_months(wall, sign * amount.count), zone)
