"""The nominal time a scheduler's firing stands for, so that a generated call passes the instance it is for and
never "now": a cron firing less than one period of its cron after an instance stands for that instance; a firing
further from every instance (cron fires more often than minutes(7) or months(5) can be said) stands for none and
is skipped. A time the scheduler gives (Airflow's logical date, Oozie's nominal time) must be an instance.

Days and months are measured as cron fires them, on the zone's wall clock: a daily firing is a wall-clock day
after the last one even when DST made it 23 hours, and a daily instance at a time DST skips (02:30 on the night
clocks go forward) stands for the firing cron makes in its stead, right after the change."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone, to_local
from toolkit.orchestration.schedule.cadence import Cadence


def instance_for_firing(cadence: Cadence, now: datetime, period_minutes: int) -> tuple[datetime | None, str]:
    """The instance a firing at `now` stands for, or None and why it stands for none."""
    if cadence.frequency.unit.is_calendar:
        zone = resolve_zone(cadence.timezone)
        wall = InstanceGrid(_wall(to_local(cadence.anchor, zone)), cadence.frequency)  # the schedule's wall times
        k = wall.floor_index(_wall(to_local(now, zone)))
        since = _wall(to_local(now, zone)) - wall.time_of(k)
    else:
        k = cadence.grid.floor_index(now)
        since = now - cadence.grid.time_of(k)
    last = cadence.grid.last_index
    if k < 0:
        return None, f"{format_timestamp(now)} is before the first call ({format_timestamp(cadence.anchor)})"
    if last is not None and k > last:
        return None, f"{format_timestamp(now)} is after the last instance {cadence.describe()}"
    instance = cadence.grid.time_of(k)
    if since >= timedelta(minutes=period_minutes):
        return None, (f"no instance {cadence.describe()} at {format_timestamp(now)} (the newest is "
                      f"{format_timestamp(instance)}): cron fires more often than the cadence, and calls between "
                      "instances are skipped")
    return instance, ""


def _wall(local: datetime) -> datetime:
    """A wall-clock time as if it were UTC: wall-clock arithmetic with the grid's own closed forms."""
    return local.replace(tzinfo=timezone.utc)


def check_given(cadence: Cadence, t: datetime) -> str:
    """Why `t` is no instance of the cadence ('' when it is one)."""
    if cadence.grid.contains(t):
        return ""
    before, after = cadence.grid.at_or_before(t), cadence.grid.at_or_after(t)
    around = ", ".join(format_timestamp(x) for x in (before, after) if x is not None)
    return (f"{format_timestamp(t)} is not an instance {cadence.describe()}"
            + (f" (the nearest: {around})" if around else "") + ": skipped")
