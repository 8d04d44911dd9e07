"""When instances expire: the nominal time minus the retention limit, in the feed's zone.

Minutes and hours are elapsed time; days and months are calendar units in the zone (Falcon used the
wall clock and 31-day months; runs must be reproducible, so the nominal time is the reference).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from toolkit.el.calendar import add_days, add_months
from toolkit.el.frequency import Frequency, TimeUnit
from toolkit.el.timezones import from_local, to_local


def shift(t: datetime, amount: Frequency, zone: ZoneInfo, sign: int) -> datetime:
    """t moved by `amount` (sign -1 back, +1 forward), calendar units counted in `zone`."""
    if amount.elapsed_seconds is not None:
        return t + sign * timedelta(seconds=amount.elapsed_seconds)
    wall = to_local(t, zone)
    if amount.unit is TimeUnit.DAYS:
        return from_local(add_days(wall, sign * amount.count), zone)
    return from_local(add_months(wall, sign * amount.count), zone)


def cutoff(nominal: datetime, limit: Frequency, zone: ZoneInfo) -> datetime:
    """Instances strictly before this instant are evicted; one exactly at it is kept."""
    return shift(nominal, limit, zone, -1)
