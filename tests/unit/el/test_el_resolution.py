"""Input and output resolution (issue 2, section 3): evaluate in the feed's zone, snap down to the
feed's grid (a nominal time off the grid too); before the feed's first instance is no instance; a
window start..end is every feed instance between the two, both included, oldest first."""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.resolution import resolve_instance, resolve_window
from toolkit.errors import UsageError

UTC = timezone.utc


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def grid(start: str, frequency: str, zone: str = "UTC", end: str | None = None) -> InstanceGrid:
    return InstanceGrid(utc(start), Frequency.parse(frequency), ZoneInfo(zone), utc(end) if end else None)


HOURLY = grid("2026-11-21T00:00Z", "hours(1)")


def hours(first: str, count: int) -> tuple[datetime, ...]:
    return tuple(utc(first) + timedelta(hours=i) for i in range(count))


def test_instance_on_the_grid():
    assert resolve_instance("now(0,0)", utc("2026-11-21T10:00Z"), HOURLY) == utc("2026-11-21T10:00Z")
    assert resolve_instance("now(-1,0)", utc("2026-11-21T10:00Z"), HOURLY) == utc("2026-11-21T09:00Z")


def test_instance_is_snapped_down():
    # 09:30 is between instances: the one at or before is 09:00.
    assert resolve_instance("now(0,-30)", utc("2026-11-21T10:00Z"), HOURLY) == utc("2026-11-21T09:00Z")
    # A nominal time off the grid is snapped too.
    assert resolve_instance("now(0,0)", utc("2026-11-21T10:45Z"), HOURLY) == utc("2026-11-21T10:00Z")
    assert resolve_instance("${now(0,0)}", utc("2026-11-21T10:45Z"), HOURLY) == utc("2026-11-21T10:00Z")


def test_instance_before_the_first_is_none():
    # 10:00 - 11 h = 23:00 the day before; the feed starts at 00:00.
    assert resolve_instance("now(-11,0)", utc("2026-11-21T10:00Z"), HOURLY) is None
    assert resolve_instance("now(-10,-1)", utc("2026-11-21T10:00Z"), HOURLY) is None
    assert resolve_instance("now(-10,0)", utc("2026-11-21T10:00Z"), HOURLY) == utc("2026-11-21T00:00Z")


def test_instance_at_or_after_the_validity_end_is_none():
    # The feed has no instance after its end: the last one must not stand in (every later run would
    # overwrite or re-read it).
    g = grid("2026-11-21T00:00Z", "hours(1)", end="2026-11-21T06:00Z")
    assert resolve_instance("now(0,0)", utc("2026-11-21T10:00Z"), g) is None
    assert resolve_instance("now(0,0)", utc("2026-11-21T06:00Z"), g) is None
    assert resolve_instance("now(0,-1)", utc("2026-11-21T06:00Z"), g) == utc("2026-11-21T05:00Z")


def test_window_is_clipped_at_the_validity_end_and_empty_beyond_it():
    g = grid("2026-11-21T00:00Z", "hours(1)", end="2026-11-21T06:00Z")
    assert resolve_window("now(-2,0)", "now(0,0)", utc("2026-11-21T06:00Z"), g) == hours("2026-11-21T04:00Z", 2)
    assert resolve_window("now(-2,0)", "now(0,0)", utc("2026-11-21T09:00Z"), g) == ()


def test_instance_from_a_parsed_expression():
    expression = parse_expression("now(-2,0)")
    assert resolve_instance(expression, utc("2026-11-21T10:00Z"), HOURLY) == utc("2026-11-21T08:00Z")


def test_window_oldest_first_both_ends_included():
    assert resolve_window("now(-3,0)", "now(0,0)", utc("2026-11-21T10:00Z"), HOURLY) == hours(
        "2026-11-21T07:00Z", 4
    )


def test_window_ends_are_snapped_down():
    # 10:30 nominal: today(0,0) = 00:00, now(0,0) = 10:30 -> 10:00: 11 instances.
    window = resolve_window("today(0,0)", "now(0,0)", utc("2026-11-21T10:30Z"), HOURLY)
    assert window == hours("2026-11-21T00:00Z", 11)
    # now(-3,-30) = 07:00 -> 07:00; now(-1,-30) = 09:00; with a 10:30 nominal: 07:00, 08:00, 09:00.
    window = resolve_window("now(-3,-30)", "now(-1,-30)", utc("2026-11-21T10:30Z"), HOURLY)
    assert window == hours("2026-11-21T07:00Z", 3)
    # now(-3,-10) = 07:20 snaps down to 07:00, which is in the window.
    window = resolve_window("now(-3,-10)", "now(0,0)", utc("2026-11-21T10:30Z"), HOURLY)
    assert window == hours("2026-11-21T07:00Z", 4)


def test_window_of_one_instance():
    assert resolve_window("now(0,0)", "now(0,0)", utc("2026-11-21T10:00Z"), HOURLY) == (utc("2026-11-21T10:00Z"),)


def test_window_partly_before_the_first_instance_is_clipped():
    # At 03:00, now(-12,0) is 15:00 the day before: instances before 00:00 do not exist.
    window = resolve_window("now(-12,0)", "now(0,0)", utc("2026-11-21T03:00Z"), HOURLY)
    assert window == hours("2026-11-21T00:00Z", 4)


def test_window_entirely_before_the_first_instance_is_empty():
    assert resolve_window("now(-24,0)", "now(-12,0)", utc("2026-11-21T03:00Z"), HOURLY) == ()


def test_window_is_clipped_at_the_validity_end():
    g = grid("2026-11-21T00:00Z", "hours(1)", end="2026-11-21T06:00Z")
    # 05:00 .. 08:00, but 06:00 is the (exclusive) end: only 05:00.
    assert resolve_window("now(-3,0)", "now(0,0)", utc("2026-11-21T08:00Z"), g) == (utc("2026-11-21T05:00Z"),)


def test_daily_feed_window_across_spring_forward_in_the_feed_zone():
    # Daily feed at local midnight in Los Angeles. Nominal 2026-03-10T12:00Z = 05:00 PDT Mar 10.
    # now(-72,0) = 2026-03-07T12:00Z = 04:00 PST Mar 7 -> Mar 7 00:00 PST (08:00Z).
    # End: Mar 10 00:00 PDT (07:00Z). Mar 8 midnight is PST (the switch is at 02:00).
    g = grid("2026-03-01T08:00Z", "days(1)", "America/Los_Angeles")
    window = resolve_window("now(-72,0)", "now(0,0)", utc("2026-03-10T12:00Z"), g)
    assert window == (
        utc("2026-03-07T08:00Z"), utc("2026-03-08T08:00Z"), utc("2026-03-09T07:00Z"), utc("2026-03-10T07:00Z"),
    )


def test_hourly_feed_window_of_a_25_hour_local_day():
    # yesterday(0,0) .. today(-1,0) from 2026-11-02T12:00Z (04:00 PST Nov 2) in Los Angeles:
    # Nov 1 00:00 PDT (07:00Z) .. Nov 2 00:00 PST (08:00Z) - 1 h = 07:00Z: 25 hourly instances.
    g = grid("2026-10-01T00:00Z", "hours(1)", "America/Los_Angeles")
    window = resolve_window("yesterday(0,0)", "today(-1,0)", utc("2026-11-02T12:00Z"), g)
    assert window == hours("2026-11-01T07:00Z", 25)


def test_hourly_feed_window_of_a_23_hour_local_day():
    # 2026-03-08 in Los Angeles: 00:00 PST (08:00Z) .. 23:00 PDT (2026-03-09T06:00Z): 23 instances.
    g = grid("2026-03-01T00:00Z", "hours(1)", "America/Los_Angeles")
    window = resolve_window("yesterday(0,0)", "today(-1,0)", utc("2026-03-09T12:00Z"), g)
    assert window == hours("2026-03-08T08:00Z", 23)


def test_evaluated_in_the_feed_zone():
    # Daily feed at midnight in Kolkata (+05:30): 18:30Z the day before. Nominal 2026-11-21T20:00Z is
    # 01:30 on Nov 22 in Kolkata: today(0,0) = Nov 22 00:00 IST = 2026-11-21T18:30Z.
    g = grid("2026-01-01T18:30Z", "days(1)", "Asia/Kolkata")
    assert resolve_instance("today(0,0)", utc("2026-11-21T20:00Z"), g) == utc("2026-11-21T18:30Z")
    assert resolve_instance("yesterday(0,0)", utc("2026-11-21T20:00Z"), g) == utc("2026-11-20T18:30Z")


def test_monthly_feed_snaps_to_clamped_instance():
    # months(1) from Jan 31 2024: Feb 29, Mar 31 ... currentMonth(0,0,0) at 2024-03-15 = Mar 1 -> Feb 29.
    g = grid("2024-01-31T00:00Z", "months(1)")
    assert resolve_instance("currentMonth(0,0,0)", utc("2024-03-15T00:00Z"), g) == utc("2024-02-29T00:00Z")
    window = resolve_window("lastYear(0,0,0,0)", "currentMonth(0,0,0)", utc("2025-03-15T00:00Z"), g)
    # 2024-01-01 .. 2025-03-01: clipped to the first instance Jan 31 2024; up to Feb 28 2025. 14 instances.
    assert window[0] == utc("2024-01-31T00:00Z")
    assert window[-1] == utc("2025-02-28T00:00Z")
    assert len(window) == 14


def test_latest_in_a_window():
    available = (utc("2026-11-21T06:00Z"), utc("2026-11-21T08:00Z"), utc("2026-11-21T11:00Z"))
    nominal = utc("2026-11-21T10:00Z")
    assert resolve_instance("latest(0)", nominal, HOURLY, available) == utc("2026-11-21T08:00Z")
    assert resolve_window("latest(-1)", "latest(0)", nominal, HOURLY, available) == hours("2026-11-21T06:00Z", 3)
    # Nothing available: no instance, an empty window.
    assert resolve_instance("latest(0)", nominal, HOURLY, ()) is None
    assert resolve_window("latest(0)", "now(0,0)", nominal, HOURLY, ()) == ()


def test_a_text_expression_cannot_name_an_instance():
    with pytest.raises(UsageError):
        resolve_instance("formatTime(now(0,0), 'yyyy')", utc("2026-11-21T10:00Z"), HOURLY)
    with pytest.raises(UsageError):
        resolve_window("now(0,0)", "nosuch(1)", utc("2026-11-21T10:00Z"), HOURLY)


def test_far_from_the_feed_start():
    # 80 years after the start the window is the same shape.
    nominal = utc("2106-11-21T10:00Z")
    assert resolve_window("now(-23,0)", "now(0,0)", nominal, HOURLY) == hours("2106-11-20T11:00Z", 24)
