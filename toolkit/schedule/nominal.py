"""The nominal time a scheduler's firing stands for, so that a generated call passes the instance it is for and
never "now": a cron firing less than one period of its cron after an instance stands for that instance; a firing
further from every instance (cron fires more often than minutes(7) or months(5) can be said) stands for none and
is skipped. A time the scheduler gives (Airflow's logical date, Oozie's nominal time) must be an instance."""

from __future__ import annotations

from datetime import datetime, timedelta

from toolkit.el.timestamps import format_timestamp
from toolkit.schedule.cadence import Cadence


def instance_for_firing(cadence: Cadence, now: datetime, period_minutes: int) -> tuple[datetime | None, str]:
    """The instance a firing at `now` stands for, or None and why it stands for none."""
    instance = cadence.grid.at_or_before(now)
    if instance is None:
        return None, f"{format_timestamp(now)} is before the first call ({format_timestamp(cadence.anchor)})"
    if now - instance >= timedelta(minutes=period_minutes):
        return None, (f"no instance {cadence.describe()} at {format_timestamp(now)} (the newest is "
                      f"{format_timestamp(instance)}): cron fires more often than the cadence, and calls between "
                      "instances are skipped")
    return instance, ""


def check_given(cadence: Cadence, t: datetime) -> str:
    """Why `t` is no instance of the cadence ('' when it is one)."""
    if cadence.grid.contains(t):
        return ""
    before, after = cadence.grid.at_or_before(t), cadence.grid.at_or_after(t)
    around = ", ".join(format_timestamp(x) for x in (before, after) if x is not None)
    return (f"{format_timestamp(t)} is not an instance {cadence.describe()}"
            + (f" (the nearest: {around})" if around else "") + ": skipped")
