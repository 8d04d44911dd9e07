"""A cadence as a cron expression: exact where cron can say it, else the finest cron that fires at every instance
(the calls in between are skipped by `toolkit call`, which knows the grid).

Elapsed units (minutes, hours) are written in UTC, where their steps never move; calendar units (days, months)
in the entity's own zone, where they are counted. Exactly expressible:
- minutes(n) and hours(n) whose step divides the hour or the day (`5-59/15 * * * *`, `30 1-23/6 * * *`);
- days(1) (`0 2 * * *` in the zone);
- months(n) with n dividing 12 from a day of month up to 28 (`0 0 15 1,3,5,7,9,11 *`).
Covered, not exact: minutes(7) fires every minute, hours(5) every hour, days(2) every day, months(5) every month
on its day, and a start on the 29th to 31st (clamped to shorter months' ends) on days 28 to 31.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from toolkit.core.el.frequency import TimeUnit
from toolkit.core.el.timezones import resolve_zone, to_local
from toolkit.orchestration.schedule.cadence import Cadence

MINUTES_PER_DAY = 1440


@dataclass(frozen=True)
class CronCover:
    """Five cron fields in `timezone`; `exact` when they fire only at the cadence's instants. Two firings are at
    least `period_minutes` apart, so a firing less than that after an instance stands for it (`toolkit call`)."""

    expression: str
    timezone: str
    exact: bool
    period_minutes: int


def cron_cover(cadence: Cadence) -> CronCover:
    frequency = cadence.frequency
    if frequency.unit in (TimeUnit.MINUTES, TimeUnit.HOURS):
        step = frequency.count * (60 if frequency.unit is TimeUnit.HOURS else 1)
        return _elapsed(step, cadence.anchor.minute, cadence.anchor.hour)
    local = to_local(cadence.anchor, resolve_zone(cadence.timezone))
    if frequency.unit is TimeUnit.DAYS:
        return CronCover(f"{local.minute} {local.hour} * * *", cadence.timezone, frequency.count == 1, MINUTES_PER_DAY)
    months = frequency.count
    if 12 % months == 0:
        month_field = "*" if months == 1 else ",".join(
            str(m) for m in range(1, 13) if (m - local.month) % months == 0)
    else:
        month_field = "*"
    if local.day > 28:  # clamped to the end of shorter months: fire on every day that can be a month's end
        return CronCover(f"{local.minute} {local.hour} 28-31 {month_field} *", cadence.timezone, False,
                         MINUTES_PER_DAY)
    return CronCover(f"{local.minute} {local.hour} {local.day} {month_field} *", cadence.timezone, 12 % months == 0,
                     28 * MINUTES_PER_DAY)


def _elapsed(step: int, minute: int, hour: int) -> CronCover:
    """Every `step` minutes through the anchor's UTC `hour`:`minute`."""
    if step < 60 or step % 60:
        every = gcd(step, 60)
        return CronCover(_minutes_field(minute, every) + " * * * *", "UTC", every == step, every)
    hours = gcd(step // 60, 24)
    first = hour % hours
    if hours == 1:
        hour_field = "*"
    elif hours == 24:
        hour_field = str(first)
    else:
        hour_field = f"{first}-23/{hours}" if first else f"*/{hours}"
    return CronCover(f"{minute} {hour_field} * * *", "UTC", hours * 60 == step, hours * 60)


def _minutes_field(first: int, every: int) -> str:
    """The minute field firing every `every` minutes (a divisor of 60) through minute `first`."""
    if every == 60:
        return str(first)
    if every == 1:
        return "*"
    first %= every
    return f"{first}-59/{every}" if first else f"*/{every}"
