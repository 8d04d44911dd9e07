"""Instance grids (issue 2, section 3): `start + k * frequency`, k >= 0, strictly before the validity
end; minutes and hours are elapsed, days and months step the start's wall clock in the grid's zone
(DST rule of Java's ZonedDateTime.of: a gap moves later by the gap, an overlap is the earlier
instant); months clamp each instance to its month's end independently; lookups are closed-form."""

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid, require_instance
from toolkit.errors import UsageError

UTC = timezone.utc
LA = ZoneInfo("America/Los_Angeles")


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def grid(start: str, frequency: str, zone: str = "UTC", end: str | None = None) -> InstanceGrid:
    return InstanceGrid(utc(start), Frequency.parse(frequency), ZoneInfo(zone), utc(end) if end else None)


HOURLY = grid("2026-01-01T00:00Z", "hours(1)")


# -- elapsed units ------------------------------------------------------------------------------------


def test_time_of_hourly():
    assert HOURLY.time_of(0) == utc("2026-01-01T00:00Z")
    assert HOURLY.time_of(5) == utc("2026-01-01T05:00Z")
    assert HOURLY.time_of(24) == utc("2026-01-02T00:00Z")
    assert HOURLY.time_of(-1) == utc("2025-12-31T23:00Z")


def test_at_or_before():
    assert HOURLY.at_or_before(utc("2026-01-01T05:30Z")) == utc("2026-01-01T05:00Z")
    assert HOURLY.at_or_before(utc("2026-01-01T05:00Z")) == utc("2026-01-01T05:00Z")
    assert HOURLY.at_or_before(utc("2026-01-01T05:59Z")) == utc("2026-01-01T05:00Z")
    assert HOURLY.at_or_before(utc("2026-01-01T00:00Z")) == utc("2026-01-01T00:00Z")
    assert HOURLY.at_or_before(utc("2025-12-31T23:59Z")) is None  # before the first instance


def test_at_or_after():
    assert HOURLY.at_or_after(utc("2026-01-01T05:30Z")) == utc("2026-01-01T06:00Z")
    assert HOURLY.at_or_after(utc("2026-01-01T05:00Z")) == utc("2026-01-01T05:00Z")
    assert HOURLY.at_or_after(utc("2026-01-01T05:01Z")) == utc("2026-01-01T06:00Z")
    # Long before the start: the first instance.
    assert HOURLY.at_or_after(utc("2020-06-01T12:34Z")) == utc("2026-01-01T00:00Z")


def test_index_of_and_contains():
    assert HOURLY.index_of(utc("2026-01-01T00:00Z")) == 0
    assert HOURLY.index_of(utc("2026-01-01T05:00Z")) == 5
    assert HOURLY.index_of(utc("2026-01-02T01:00Z")) == 25
    assert HOURLY.index_of(utc("2026-01-01T05:30Z")) is None  # off the grid
    assert HOURLY.index_of(utc("2025-12-31T23:00Z")) is None  # on the grid's line, but k = -1
    assert HOURLY.contains(utc("2026-01-01T07:00Z"))
    assert not HOURLY.contains(utc("2026-01-01T07:01Z"))


def test_floor_index_is_negative_before_the_start():
    assert HOURLY.floor_index(utc("2026-01-01T00:00Z")) == 0
    assert HOURLY.floor_index(utc("2026-01-01T05:59Z")) == 5
    assert HOURLY.floor_index(utc("2025-12-31T23:30Z")) == -1
    assert HOURLY.floor_index(utc("2025-12-31T22:00Z")) == -2


def test_minutes_grid_with_an_offset_start():
    g = grid("2026-01-01T00:05Z", "minutes(15)")  # 00:05, 00:20, 00:35, 00:50, 01:05, ...
    assert g.at_or_before(utc("2026-01-01T01:00Z")) == utc("2026-01-01T00:50Z")
    assert g.at_or_after(utc("2026-01-01T01:00Z")) == utc("2026-01-01T01:05Z")
    assert g.index_of(utc("2026-01-01T01:05Z")) == 4
    assert g.index_of(utc("2026-01-01T01:00Z")) is None


def test_hours_6_grid():
    g = grid("2026-01-01T00:00Z", "hours(6)")
    # 2026-01-03T13:00 is 2 days 13 hours after the start = 61 hours; 61 // 6 = 10 -> 60 hours = 12:00.
    assert g.at_or_before(utc("2026-01-03T13:00Z")) == utc("2026-01-03T12:00Z")
    assert g.floor_index(utc("2026-01-03T13:00Z")) == 10
    assert g.at_or_after(utc("2026-01-03T13:00Z")) == utc("2026-01-03T18:00Z")


def test_aware_non_utc_queries_are_instants():
    kolkata = ZoneInfo("Asia/Kolkata")
    # 10:30 in Kolkata is 05:00 UTC.
    assert HOURLY.index_of(datetime(2026, 1, 1, 10, 30, tzinfo=kolkata)) == 5


# -- validity end (exclusive) -----------------------------------------------------------------------


def test_end_is_exclusive():
    g = grid("2026-01-01T00:00Z", "hours(1)", end="2026-01-02T00:00Z")
    # Instances 00:00 .. 23:00 of Jan 1: 24 instances, k = 0 .. 23; the end itself is not an instance.
    assert g.last_index == 23
    assert g.index_of(utc("2026-01-01T23:00Z")) == 23
    assert g.index_of(utc("2026-01-02T00:00Z")) is None
    assert not g.contains(utc("2026-01-02T00:00Z"))
    assert g.at_or_before(utc("2026-01-02T00:00Z")) == utc("2026-01-01T23:00Z")
    assert g.at_or_before(utc("2030-01-01T00:00Z")) == utc("2026-01-01T23:00Z")
    assert g.at_or_after(utc("2026-01-01T23:00Z")) == utc("2026-01-01T23:00Z")
    assert g.at_or_after(utc("2026-01-01T23:01Z")) is None
    assert g.at_or_after(utc("2026-01-02T00:00Z")) is None


def test_end_off_the_grid():
    g = grid("2026-01-01T00:00Z", "hours(1)", end="2026-01-01T05:30Z")
    assert g.last_index == 5
    assert g.at_or_after(utc("2026-01-01T05:10Z")) is None


def test_open_ended_grid_has_no_last_index():
    assert HOURLY.last_index is None


def test_end_equal_to_start_is_an_empty_grid():
    g = grid("2026-01-01T00:00Z", "hours(1)", end="2026-01-01T00:00Z")
    assert g.last_index == -1
    assert g.at_or_before(utc("2026-01-01T10:00Z")) is None
    assert g.at_or_after(utc("2025-12-31T00:00Z")) is None
    assert g.index_of(utc("2026-01-01T00:00Z")) is None
    assert list(g.between(utc("2025-01-01T00:00Z"), utc("2027-01-01T00:00Z"))) == []
    assert g.count_between(utc("2025-01-01T00:00Z"), utc("2027-01-01T00:00Z")) == 0


def test_calendar_grid_end_is_exclusive():
    # days(1) at local midnight in Los Angeles: Mar 6, 7, 8 at 08:00Z (PST), Mar 9 at 07:00Z (PDT).
    g = grid("2026-03-06T08:00Z", "days(1)", "America/Los_Angeles", end="2026-03-09T07:00Z")
    assert g.last_index == 2
    g2 = grid("2026-03-06T08:00Z", "days(1)", "America/Los_Angeles", end="2026-03-09T07:01Z")
    assert g2.last_index == 3


# -- between / count_between --------------------------------------------------------------------------


def test_between_includes_both_ends_oldest_first():
    assert list(HOURLY.between(utc("2026-01-01T02:30Z"), utc("2026-01-01T05:00Z"))) == [
        utc("2026-01-01T03:00Z"), utc("2026-01-01T04:00Z"), utc("2026-01-01T05:00Z"),
    ]
    assert list(HOURLY.between(utc("2026-01-01T03:00Z"), utc("2026-01-01T05:00Z"))) == [
        utc("2026-01-01T03:00Z"), utc("2026-01-01T04:00Z"), utc("2026-01-01T05:00Z"),
    ]
    assert list(HOURLY.between(utc("2026-01-01T05:00Z"), utc("2026-01-01T05:00Z"))) == [utc("2026-01-01T05:00Z")]
    assert list(HOURLY.between(utc("2026-01-01T05:10Z"), utc("2026-01-01T05:50Z"))) == []
    assert list(HOURLY.between(utc("2026-01-01T06:00Z"), utc("2026-01-01T05:00Z"))) == []


def test_between_is_clipped_to_the_grid():
    g = grid("2026-01-01T00:00Z", "hours(1)", end="2026-01-01T03:00Z")
    # Before the start: starts at the first instance; past the end: stops at the last (02:00).
    assert list(g.between(utc("2025-12-31T20:00Z"), utc("2026-01-01T10:00Z"))) == [
        utc("2026-01-01T00:00Z"), utc("2026-01-01T01:00Z"), utc("2026-01-01T02:00Z"),
    ]
    assert list(g.between(utc("2025-12-31T20:00Z"), utc("2025-12-31T23:59Z"))) == []
    assert list(g.between(utc("2026-01-01T03:00Z"), utc("2026-01-01T10:00Z"))) == []


def test_count_between_matches_between():
    g = grid("2026-01-01T00:00Z", "hours(1)", end="2026-01-01T03:00Z")
    assert g.count_between(utc("2025-12-31T20:00Z"), utc("2026-01-01T10:00Z")) == 3
    assert HOURLY.count_between(utc("2026-01-01T02:30Z"), utc("2026-01-01T05:00Z")) == 3
    assert HOURLY.count_between(utc("2026-01-01T05:10Z"), utc("2026-01-01T05:50Z")) == 0
    assert HOURLY.count_between(utc("2025-01-01T00:00Z"), utc("2025-12-31T23:59Z")) == 0


def test_count_between_over_eighty_years_without_listing():
    # Hours in [2026-01-01T00:00, 2106-01-01T00:00], both ends included: elapsed hours + 1.
    hours = (datetime(2106, 1, 1) - datetime(2026, 1, 1)) // timedelta(hours=1)
    assert HOURLY.count_between(utc("2026-01-01T00:00Z"), utc("2106-01-01T00:00Z")) == hours + 1


# -- days ---------------------------------------------------------------------------------------------


def test_days_grid_in_utc():
    g = grid("2026-01-01T06:00Z", "days(1)")
    assert g.at_or_before(utc("2026-01-05T05:59Z")) == utc("2026-01-04T06:00Z")
    assert g.index_of(utc("2026-01-04T06:00Z")) == 3
    assert g.at_or_after(utc("2026-01-05T05:59Z")) == utc("2026-01-05T06:00Z")


def test_days_7_grid():
    g = grid("2026-01-05T00:00Z", "days(7)")  # Mondays
    assert g.at_or_before(utc("2026-01-18T23:59Z")) == utc("2026-01-12T00:00Z")
    assert g.at_or_after(utc("2026-01-12T00:01Z")) == utc("2026-01-19T00:00Z")
    assert g.index_of(utc("2026-01-19T00:00Z")) == 2
    assert g.index_of(utc("2026-01-13T00:00Z")) is None


def test_daily_grid_stays_at_local_midnight_across_spring_forward():
    # Los Angeles 2026: DST starts Sunday Mar 8 at 02:00. Midnight is 08:00Z in PST, 07:00Z in PDT.
    g = grid("2026-03-06T08:00Z", "days(1)", "America/Los_Angeles")
    assert list(g.between(utc("2026-03-06T00:00Z"), utc("2026-03-10T12:00Z"))) == [
        utc("2026-03-06T08:00Z"),
        utc("2026-03-07T08:00Z"),
        utc("2026-03-08T08:00Z"),  # midnight Mar 8 is still PST
        utc("2026-03-09T07:00Z"),  # the day was 23 hours long
        utc("2026-03-10T07:00Z"),
    ]
    # 2026-03-09T06:59Z is 23:59 PDT on Mar 8.
    assert g.at_or_before(utc("2026-03-09T06:59Z")) == utc("2026-03-08T08:00Z")
    assert g.at_or_after(utc("2026-03-09T06:59Z")) == utc("2026-03-09T07:00Z")
    assert g.index_of(utc("2026-03-09T07:00Z")) == 3
    assert g.index_of(utc("2026-03-09T08:00Z")) is None  # 24 hours later is 01:00 PDT, not an instance


def test_daily_grid_stays_at_local_midnight_across_fall_back():
    # Los Angeles 2026: DST ends Sunday Nov 1 at 02:00 PDT. Midnight Nov 1 is PDT (07:00Z), Nov 2 PST (08:00Z).
    g = grid("2026-10-30T07:00Z", "days(1)", "America/Los_Angeles")
    assert list(g.between(utc("2026-10-30T00:00Z"), utc("2026-11-03T12:00Z"))) == [
        utc("2026-10-30T07:00Z"),
        utc("2026-10-31T07:00Z"),
        utc("2026-11-01T07:00Z"),
        utc("2026-11-02T08:00Z"),  # the day was 25 hours long
        utc("2026-11-03T08:00Z"),
    ]
    assert g.at_or_before(utc("2026-11-02T07:59Z")) == utc("2026-11-01T07:00Z")


def test_daily_grid_in_london():
    # London 2026: BST starts Sunday Mar 29 at 01:00 GMT. Midnight Mar 29 is 00:00Z, Mar 30 is 23:00Z Mar 29.
    g = grid("2026-03-28T00:00Z", "days(1)", "Europe/London")
    assert g.time_of(1) == utc("2026-03-29T00:00Z")
    assert g.time_of(2) == utc("2026-03-29T23:00Z")
    assert g.at_or_before(utc("2026-03-29T22:59Z")) == utc("2026-03-29T00:00Z")


def test_daily_grid_when_midnight_is_in_the_gap():
    # Sao Paulo, 2018-11-04: clocks jumped from 00:00 (-03) to 01:00 (-02); midnight did not exist and
    # moves later by the gap: 01:00 -02 = 03:00Z. Nov 3 midnight is 03:00Z (-03), Nov 5 is 02:00Z (-02).
    g = grid("2018-11-03T03:00Z", "days(1)", "America/Sao_Paulo")
    assert list(g.between(utc("2018-11-03T00:00Z"), utc("2018-11-05T12:00Z"))) == [
        utc("2018-11-03T03:00Z"), utc("2018-11-04T03:00Z"), utc("2018-11-05T02:00Z"),
    ]


def test_daily_instance_in_spring_gap_moves_later_by_the_gap():
    # Start 2026-03-07T10:30Z is 02:30 PST. On Mar 8 02:30 does not exist: 03:30 PDT = 10:30Z.
    # On Mar 9 02:30 PDT = 09:30Z.
    g = grid("2026-03-07T10:30Z", "days(1)", "America/Los_Angeles")
    assert g.time_of(1) == utc("2026-03-08T10:30Z")
    assert g.time_of(2) == utc("2026-03-09T09:30Z")
    assert g.index_of(utc("2026-03-08T10:30Z")) == 1
    assert g.at_or_before(utc("2026-03-08T10:29Z")) == utc("2026-03-07T10:30Z")
    assert g.at_or_after(utc("2026-03-08T10:31Z")) == utc("2026-03-09T09:30Z")


def test_daily_instance_in_half_hour_gap():
    # Lord Howe: 2026-10-04 02:00 (+10:30) jumps to 02:30 (+11). Start 2026-10-02T15:45Z = 02:15 on Oct 3.
    # Oct 4 02:15 is in the gap: 02:45 +11 = 2026-10-03T15:45Z. Oct 5 02:15 +11 = 2026-10-04T15:15Z.
    g = grid("2026-10-02T15:45Z", "days(1)", "Australia/Lord_Howe")
    assert g.time_of(1) == utc("2026-10-03T15:45Z")
    assert g.time_of(2) == utc("2026-10-04T15:15Z")
    assert g.index_of(utc("2026-10-04T15:15Z")) == 2


def test_daily_instance_in_autumn_overlap_is_the_earlier_instant():
    # Start 2026-10-31T08:30Z is 01:30 PDT. On Nov 1 01:30 happens twice: the earlier (PDT) = 08:30Z.
    # Nov 2 01:30 PST = 09:30Z.
    g = grid("2026-10-31T08:30Z", "days(1)", "America/Los_Angeles")
    assert g.time_of(1) == utc("2026-11-01T08:30Z")
    assert g.time_of(2) == utc("2026-11-02T09:30Z")
    assert g.index_of(utc("2026-11-01T08:30Z")) == 1
    assert g.index_of(utc("2026-11-01T09:30Z")) is None  # the second 01:30 is not an instance
    assert g.at_or_before(utc("2026-11-01T09:30Z")) == utc("2026-11-01T08:30Z")
    assert g.at_or_after(utc("2026-11-01T08:31Z")) == utc("2026-11-02T09:30Z")


def test_daily_grid_whose_start_is_the_second_of_a_repeated_hour():
    # The start is an instant: 2026-11-01T09:30Z is the second 01:30 of Nov 1 (PST). Instance 0 is the
    # start itself (start + 0 * frequency), whatever the wall clock says; nothing lies before it.
    # Instance 1 is Nov 2 01:30 PST = 09:30Z.
    g = grid("2026-11-01T09:30Z", "days(1)", "America/Los_Angeles")
    assert list(g.between(utc("2026-10-31T00:00Z"), utc("2026-11-03T00:00Z"))) == [
        utc("2026-11-01T09:30Z"), utc("2026-11-02T09:30Z"),
    ]
    assert g.time_of(0) == utc("2026-11-01T09:30Z")
    assert g.index_of(utc("2026-11-01T09:30Z")) == 0
    assert g.at_or_after(utc("2026-11-01T09:00Z")) == utc("2026-11-01T09:30Z")
    assert g.at_or_before(utc("2026-11-01T09:00Z")) is None
    assert g.time_of(1) == utc("2026-11-02T09:30Z")


def test_monthly_grid_whose_start_is_the_second_of_a_repeated_hour():
    # The same for months: instance 0 is the start, Nov 1 01:30 PST (09:30Z); Dec 1 01:30 PST = 09:30Z.
    g = grid("2026-11-01T09:30Z", "months(1)", "America/Los_Angeles")
    assert list(g.between(utc("2026-10-01T00:00Z"), utc("2026-12-02T00:00Z"))) == [
        utc("2026-11-01T09:30Z"), utc("2026-12-01T09:30Z"),
    ]


def test_daily_grid_in_a_zone_without_dst():
    # Kolkata is +05:30 all year: local midnight is 18:30Z of the day before.
    g = grid("2026-01-01T18:30Z", "days(1)", "Asia/Kolkata")
    assert g.at_or_before(utc("2026-07-15T18:29Z")) == utc("2026-07-14T18:30Z")
    assert g.index_of(utc("2026-07-15T18:30Z")) == (date(2026, 7, 16) - date(2026, 1, 2)).days


# -- hours across DST: elapsed time -----------------------------------------------------------------


def test_falcon_example_hourly_grid_has_23_instances_on_the_spring_forward_day():
    # Falcon's example: hours(1) from 2012-03-11T08:40Z in PST8PDT. 2012-03-11 local runs from 00:00 PST
    # (08:00Z) to 00:00 PDT on Mar 12 (07:00Z): 23 hours, so 23 instances (local 00:40, 01:40, 03:40 ... 23:40).
    zone = ZoneInfo("PST8PDT")
    g = InstanceGrid(utc("2012-03-11T08:40Z"), Frequency.parse("hours(1)"), zone)
    listed = list(g.between(utc("2012-03-10T00:00Z"), utc("2012-03-13T12:00Z")))
    on_the_day = [t for t in listed if t.astimezone(zone).date() == date(2012, 3, 11)]
    assert len(on_the_day) == 23
    assert [t.astimezone(zone).hour for t in on_the_day] == [0, 1] + list(range(3, 24))
    assert all(t.astimezone(zone).minute == 40 for t in on_the_day)
    assert g.count_between(utc("2012-03-11T08:00Z"), utc("2012-03-12T06:59Z")) == 23
    # The day after has 24, and the autumn day (2012-11-04, 25 hours long) has 25.
    assert g.count_between(utc("2012-03-12T07:00Z"), utc("2012-03-13T06:59Z")) == 24
    assert g.count_between(utc("2012-11-04T07:00Z"), utc("2012-11-05T07:59Z")) == 25


def test_hourly_grid_is_elapsed_time_across_dst():
    # Midnight PST on 2026-03-08 = 08:00Z: hourly instances are 08:00Z, 09:00Z, 10:00Z (= 00:00, 01:00, 03:00 local).
    g = grid("2026-03-08T08:00Z", "hours(1)", "America/Los_Angeles")
    assert g.time_of(2) == utc("2026-03-08T10:00Z")
    assert g.index_of(utc("2026-03-09T07:00Z")) == 23


# -- months -------------------------------------------------------------------------------------------


def test_months_from_jan_31_clamp_each_instance_independently_leap_year():
    g = grid("2024-01-31T00:00Z", "months(1)")
    assert [g.time_of(k) for k in range(6)] == [
        utc("2024-01-31T00:00Z"), utc("2024-02-29T00:00Z"), utc("2024-03-31T00:00Z"),
        utc("2024-04-30T00:00Z"), utc("2024-05-31T00:00Z"), utc("2024-06-30T00:00Z"),
    ]
    assert list(g.between(utc("2024-01-01T00:00Z"), utc("2024-05-01T00:00Z"))) == [
        utc("2024-01-31T00:00Z"), utc("2024-02-29T00:00Z"), utc("2024-03-31T00:00Z"), utc("2024-04-30T00:00Z"),
    ]


def test_months_from_jan_31_in_a_common_year():
    g = grid("2025-01-31T00:00Z", "months(1)")
    assert [g.time_of(k) for k in range(4)] == [
        utc("2025-01-31T00:00Z"), utc("2025-02-28T00:00Z"), utc("2025-03-31T00:00Z"), utc("2025-04-30T00:00Z"),
    ]


def test_month_lookups():
    g = grid("2024-01-31T00:00Z", "months(1)")
    assert g.at_or_before(utc("2024-03-30T00:00Z")) == utc("2024-02-29T00:00Z")
    assert g.at_or_before(utc("2024-03-31T00:00Z")) == utc("2024-03-31T00:00Z")
    assert g.at_or_after(utc("2024-03-01T00:00Z")) == utc("2024-03-31T00:00Z")
    assert g.at_or_after(utc("2024-02-29T00:01Z")) == utc("2024-03-31T00:00Z")
    assert g.index_of(utc("2024-02-29T00:00Z")) == 1
    assert g.index_of(utc("2024-02-28T00:00Z")) is None
    assert g.index_of(utc("2024-03-29T00:00Z")) is None  # no drift to the 29th
    assert g.floor_index(utc("2024-01-30T23:59Z")) == -1


def test_months_3_keep_the_start_day():
    g = grid("2024-11-30T12:00Z", "months(3)")
    # Nov 30, Feb 28 (2025 is common), May 30, Aug 30: the 30th comes back after the clamped February.
    assert [g.time_of(k) for k in range(4)] == [
        utc("2024-11-30T12:00Z"), utc("2025-02-28T12:00Z"), utc("2025-05-30T12:00Z"), utc("2025-08-30T12:00Z"),
    ]


def test_months_12_from_a_leap_day():
    g = grid("2024-02-29T00:00Z", "months(12)")
    assert [g.time_of(k) for k in range(5)] == [
        utc("2024-02-29T00:00Z"), utc("2025-02-28T00:00Z"), utc("2026-02-28T00:00Z"),
        utc("2027-02-28T00:00Z"), utc("2028-02-29T00:00Z"),
    ]


def test_monthly_grid_at_local_midnight_across_dst():
    # Midnight of the 1st in Los Angeles: 08:00Z in PST (Jan-Mar 7, Nov 2-Dec), 07:00Z in PDT.
    g = grid("2026-01-01T08:00Z", "months(1)", "America/Los_Angeles")
    assert g.time_of(3) == utc("2026-04-01T07:00Z")
    assert g.time_of(10) == utc("2026-11-01T07:00Z")  # Nov 1 midnight is still PDT
    assert g.time_of(11) == utc("2026-12-01T08:00Z")
    assert g.at_or_before(utc("2026-04-01T07:59Z")) == utc("2026-04-01T07:00Z")
    assert g.at_or_before(utc("2026-04-01T06:59Z")) == utc("2026-03-01T08:00Z")


def test_monthly_instance_in_a_gap():
    # 02:30 PST on the 8th: on 2026-03-08 02:30 does not exist -> 03:30 PDT = 10:30Z; Apr 8 02:30 PDT = 09:30Z.
    g = grid("2026-02-08T10:30Z", "months(1)", "America/Los_Angeles")
    assert g.time_of(1) == utc("2026-03-08T10:30Z")
    assert g.time_of(2) == utc("2026-04-08T09:30Z")
    assert g.index_of(utc("2026-03-08T10:30Z")) == 1


# -- far from the start -------------------------------------------------------------------------------


def test_hourly_eighty_years_later():
    t = utc("2106-07-04T13:27Z")
    k = (datetime(2106, 7, 4, 13) - datetime(2026, 1, 1)) // timedelta(hours=1)
    assert HOURLY.at_or_before(t) == utc("2106-07-04T13:00Z")
    assert HOURLY.at_or_after(t) == utc("2106-07-04T14:00Z")
    assert HOURLY.floor_index(t) == k
    assert HOURLY.index_of(utc("2106-07-04T13:00Z")) == k
    assert HOURLY.time_of(k) == utc("2106-07-04T13:00Z")


def test_minutes_7_far_away():
    g = grid("2026-01-01T00:03Z", "minutes(7)")
    t = utc("2026-01-01T00:03Z") + timedelta(minutes=7 * 10_000_000)
    assert g.index_of(t) == 10_000_000
    assert g.at_or_before(t + timedelta(minutes=6)) == t
    assert g.at_or_after(t + timedelta(minutes=1)) == t + timedelta(minutes=7)


def test_daily_la_eighty_years_later():
    g = grid("2026-01-01T08:00Z", "days(1)", "America/Los_Angeles")
    # 2106-07-04T12:00Z is 05:00 PDT on Jul 4 (the US rule continues): midnight PDT = 07:00Z.
    assert g.at_or_before(utc("2106-07-04T12:00Z")) == utc("2106-07-04T07:00Z")
    assert g.at_or_after(utc("2106-07-04T12:00Z")) == utc("2106-07-05T07:00Z")
    assert g.index_of(utc("2106-07-04T07:00Z")) == (date(2106, 7, 4) - date(2026, 1, 1)).days
    # Winter, PST: midnight = 08:00Z.
    assert g.at_or_before(utc("2106-12-25T07:59Z")) == utc("2106-12-24T08:00Z")


def test_monthly_eighty_years_later():
    g = grid("2024-01-31T00:00Z", "months(1)")
    # 2104 is a leap year (divisible by 4, not by 100): Feb 29 exists. 80 years and 1 month = 961 months.
    assert g.index_of(utc("2104-02-29T00:00Z")) == 80 * 12 + 1
    assert g.at_or_before(utc("2104-02-15T00:00Z")) == utc("2104-01-31T00:00Z")
    assert g.at_or_after(utc("2104-02-15T00:00Z")) == utc("2104-02-29T00:00Z")
    # 2100 is not a leap year: Feb 28.
    assert g.index_of(utc("2100-02-28T00:00Z")) == 76 * 12 + 1


def test_monthly_la_eighty_years_later():
    g = grid("2024-01-31T08:00Z", "months(1)", "America/Los_Angeles")  # Jan 31 00:00 PST
    # 2104-07-31 00:00 PDT = 07:00Z, 80 years and 6 months later.
    assert g.index_of(utc("2104-07-31T07:00Z")) == 80 * 12 + 6
    assert g.at_or_before(utc("2104-07-31T06:59Z")) == utc("2104-06-30T07:00Z")


def test_far_lookups_on_a_bounded_grid():
    g = grid("2026-01-01T00:00Z", "hours(1)", end="2106-01-01T00:00Z")
    last = (datetime(2106, 1, 1) - datetime(2026, 1, 1)) // timedelta(hours=1) - 1
    assert g.last_index == last
    assert g.at_or_before(utc("2200-01-01T00:00Z")) == utc("2105-12-31T23:00Z")


# -- require_instance ---------------------------------------------------------------------------------


def test_require_instance():
    assert require_instance(HOURLY, utc("2026-01-01T05:00Z"), "feed clicks") == 5
    with pytest.raises(UsageError) as caught:
        require_instance(HOURLY, utc("2026-01-01T05:30Z"), "feed clicks")
    message = str(caught.value)
    assert "feed clicks" in message
    assert "2026-01-01T05:00Z" in message and "2026-01-01T06:00Z" in message


def test_grid_needs_aware_times():
    with pytest.raises(ValueError):
        InstanceGrid(datetime(2026, 1, 1), Frequency.parse("hours(1)"))
