"""The cron of each cadence, fired as cron fires it (croniter, in the line's CRON_TZ), with `toolkit call`'s rule
applied to each firing: every instance is called exactly once, with its own time, and an exact cron never fires
between instances."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from croniter import croniter
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.core.el.frequency import Frequency
from toolkit.orchestration.schedule.cadence import Cadence
from toolkit.orchestration.schedule.cron import cron_cover
from toolkit.orchestration.schedule.nominal import instance_for_firing


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def firings(expression: str, zone: str, first: datetime, last: datetime) -> list[datetime]:
    """When cron fires `expression` in `zone` between first and last (UTC instants). A wall-clock time that the
    fall-back change repeats fires once, as cronie and Vixie cron run it (croniter would name it twice)."""
    runner = croniter(expression, (first - timedelta(minutes=1)).astimezone(ZoneInfo(zone)))
    found: list[datetime] = []
    seen: set[datetime] = set()
    while (t := runner.get_next(datetime).astimezone(timezone.utc)) <= last:
        wall = t.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
        if wall not in seen:
            seen.add(wall)
            found.append(t)
    return found


def called(cadence: Cadence, first: datetime, last: datetime) -> tuple[list[datetime], int]:
    """The instances the cron line calls between first and last, and how many firings were skipped."""
    cover = cron_cover(cadence)
    run, skipped = [], 0
    for fire in firings(cover.expression, cover.timezone, first, last):
        instance, why = instance_for_firing(cadence, fire, cover.period_minutes)
        if instance is None:
            assert why, "a skipped firing says why"
            skipped += 1
        else:
            run.append(instance)
    return run, skipped


CASES = [
    # frequency, zone, anchor, window days, cron expression, exact
    ("minutes(1)", "UTC", utc(2026, 1, 1, 0, 0), 1, "* * * * *", True),
    ("minutes(7)", "UTC", utc(2026, 1, 1, 0, 3), 2, "* * * * *", False),
    ("minutes(15)", "UTC", utc(2026, 1, 1, 0, 5), 2, "5-59/15 * * * *", True),
    ("minutes(90)", "UTC", utc(2026, 1, 1, 0, 35), 3, "5-59/30 * * * *", False),
    ("hours(1)", "UTC", utc(2026, 1, 1, 0, 10), 5, "10 * * * *", True),
    ("hours(5)", "UTC", utc(2026, 1, 1, 1, 0), 20, "0 * * * *", False),
    ("hours(6)", "UTC", utc(2026, 1, 1, 3, 0), 20, "0 3-23/6 * * *", True),
    ("hours(1)", "Europe/Paris", utc(2026, 1, 1, 0, 10), 5, "10 * * * *", True),  # elapsed units are UTC's
    ("days(1)", "Europe/Paris", utc(2026, 1, 1, 5, 30), 400, "30 6 * * *", True),  # across both DST changes
    ("days(2)", "America/New_York", utc(2026, 1, 1, 12, 0), 400, "0 7 * * *", False),
    ("months(1)", "UTC", utc(2026, 1, 15, 6, 0), 800, "0 6 15 * *", True),
    ("months(2)", "UTC", utc(2026, 1, 15, 6, 0), 800, "0 6 15 1,3,5,7,9,11 *", True),
    ("months(5)", "UTC", utc(2026, 1, 15, 6, 0), 2000, "0 6 15 * *", False),
    ("months(1)", "UTC", utc(2026, 1, 31, 0, 0), 800, "0 0 28-31 * *", False),  # clamped: Feb 28, Apr 30 ...
    # across DST changes, where a wall-clock day or month is not 24 hours or 28 days of elapsed time
    ("days(2)", "Europe/Paris", utc(2026, 3, 27, 23, 0), 30, "0 0 * * *", False),
    ("months(5)", "America/New_York", utc(2026, 2, 15, 5, 0), 800, "0 0 15 * *", False),
    ("months(1)", "Europe/Paris", utc(2026, 1, 29, 0, 0), 400, "0 1 28-31 * *", False),
    ("days(1)", "Europe/Paris", utc(2026, 3, 20, 1, 30), 400, "30 2 * * *", True),  # 02:30 does not exist on Mar 29
    ("months(3)", "Asia/Kolkata", utc(2026, 2, 9, 18, 30), 800, "0 0 10 2,5,8,11 *", True),
]


@pytest.mark.parametrize("frequency, zone, anchor, days, expression, exact", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]:%d%H%M}" for c in CASES])
def test_every_instance_is_called_once_with_its_own_time(frequency: str, zone: str, anchor: datetime, days: int,
                                                          expression: str, exact: bool) -> None:
    cadence = Cadence(Frequency.parse(frequency), anchor, zone)
    cover = cron_cover(cadence)
    assert (cover.expression, cover.exact) == (expression, exact)
    last = anchor + timedelta(days=days)
    run, skipped = called(cadence, anchor, last)
    assert run == list(cadence.grid.between(anchor, last))
    assert (skipped == 0) is exact


def test_the_covering_cron_of_a_month_end_start_calls_the_clamped_ends() -> None:
    cadence = Cadence(Frequency.parse("months(1)"), utc(2026, 1, 31), "UTC")
    run, skipped = called(cadence, utc(2026, 1, 31), utc(2026, 5, 31))
    assert run == [utc(2026, 1, 31), utc(2026, 2, 28), utc(2026, 3, 31), utc(2026, 4, 30), utc(2026, 5, 31)]
    assert skipped == 8  # Mar 28-30, Apr 28-29, May 28-30


def test_a_late_firing_still_stands_for_its_instance() -> None:
    cadence = Cadence(Frequency.parse("hours(1)"), utc(2026, 1, 1), "UTC")
    assert instance_for_firing(cadence, utc(2026, 3, 1, 10, 59), 60) == (utc(2026, 3, 1, 10), "")


def test_a_firing_before_the_first_instance_stands_for_none() -> None:
    cadence = Cadence(Frequency.parse("hours(1)"), utc(2026, 1, 1), "UTC")
    instance, why = instance_for_firing(cadence, utc(2025, 12, 31, 23), 60)
    assert instance is None and "before the first call (2026-01-01T00:00Z)" in why


@settings(max_examples=40, deadline=None)
@given(unit=st.sampled_from(["minutes", "hours"]), count=st.integers(1, 50), minute=st.integers(0, 59),
       hour=st.integers(0, 23))
def test_elapsed_cadences_are_covered_exactly_once(unit: str, count: int, minute: int, hour: int) -> None:
    cadence = Cadence(Frequency.parse(f"{unit}({count})"), utc(2026, 3, 1, hour, minute), "UTC")
    span = timedelta(minutes=count * (60 if unit == "hours" else 1) * 12)
    run, _ = called(cadence, cadence.anchor, cadence.anchor + span)
    assert run == list(cadence.grid.between(cadence.anchor, cadence.anchor + span))
