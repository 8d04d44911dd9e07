"""When instances expire: the nominal time minus the retention limit, in the feed's zone.

Days and months are calendar units in the zone (Falcon used the wall clock and 31-day months; runs must
be reproducible, so the nominal time is the reference).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.shift import shift


def cutoff(nominal: datetime, limit: Frequency, zone: ZoneInfo) -> datetime:
    """Instances strictly before this instant are evicted; one exactly at it is kept."""
    return shift(nominal, limit, zone, -1)
