"""The instances that read a feed instance, found by inverting the window arithmetic (window_inverse), checked
against the forward resolution of every process instance (resolve_window) for random windows, frequencies,
zones with DST and validity edges; and by hand on DST days in Europe/Berlin and America/New_York."""

from __future__ import annotations

import shutil
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.resolution import resolve_window
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.window_inverse import (
    NotInvertible,
    _first_true,
    candidate_instances,
    instances_reading,
    ranges_reading,
    readers_of,
)
from toolkit.errors import UsageError

UTC = timezone.utc
TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Sao_Paulo"]
# Instants next to clock changes: Berlin and New York in 2026 (spring, fall), Sao Paulo's DST at midnight (2018),
# Lord Howe's 30-minute shift (2026-04-05).
ANCHORS = [datetime(2026, 3, 29, 1, tzinfo=UTC), datetime(2026, 10, 25, 1, tzinfo=UTC),
           datetime(2026, 3, 8, 7, tzinfo=UTC), datetime(2026, 11, 1, 6, tzinfo=UTC),
           datetime(2018, 11, 4, 3, tzinfo=UTC), datetime(2018, 2, 18, 2, tzinfo=UTC),
           datetime(2026, 4, 4, 15, tzinfo=UTC)]
FINE = ["minutes(15)", "hours(1)"]
COARSE = ["hours(5)", "days(1)", "months(1)"]
SMALL = ["now(0,0)", "now(-1,0)", "now(-3,-30)", "now(1,15)", "instanceTime()", "today(0,0)", "today(23,59)",
         "today(-1,0)", "yesterday(0,0)", "yesterday(23,0)", "yesterday(24,30)",
         "dateOffset(instanceTime(), -2, 'HOUR')", "dateOffset(now(0,30), 45, 'MINUTE')",
         "currentWeek('MON',0,0)", "lastWeek('SUN',12,0)"]
LARGE = SMALL + ["currentMonth(0,0,0)", "currentMonth(-1,23,0)", "lastMonth(0,0,0)", "lastMonth(30,0,0)",
                 "currentYear(0,0,0,0)", "lastYear(0,0,0,0)", "lastYear(11,30,23,59)", "currentYear(1,-1,0,0)"]
PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def grid(start: datetime, frequency: str, zone: str, end: datetime | None) -> InstanceGrid:
    return InstanceGrid(start, Frequency.parse(frequency), resolve_zone(zone), end)


def forward(start: str, end: str, feed: InstanceGrid, process: InstanceGrid) -> dict[datetime, list[datetime]]:
    """Brute force: every process instance's window resolved forward, inverted into feed instance -> readers."""
    assert process.end is not None
    readers: dict[datetime, list[datetime]] = {}
    for nominal in process.between(process.start, process.end):
        for t in resolve_window(start, end, nominal, feed):
            readers.setdefault(t, []).append(nominal)
    return readers


def assert_inverse_matches(start: str, end: str, feed: InstanceGrid, process: InstanceGrid) -> None:
    readers = forward(start, end, feed, process)
    # Every feed instance some window holds, its neighbours (where the runs of readers end), the feed's first and
    # last instances, and times off the feed grid.
    probes = set(readers)
    for t in readers:
        k = feed.floor_index(t)
        probes.update(feed.time_of(i) for i in (k - 1, k + 1) if i >= 0)
        probes.add(t + timedelta(minutes=1))
    probes.add(feed.start)
    if feed.last_index is not None and feed.last_index >= 0:
        probes.add(feed.time_of(feed.last_index))
    for t in sorted(probes):
        assert readers_of(start, end, feed, process, t).times == tuple(readers.get(t, ())), (start, end, t)


@st.composite
def setups(draw: st.DrawFn, frequencies: list[str], windows: list[str]) -> tuple[str, str, InstanceGrid, InstanceGrid]:
    """A window and a feed and process grid near a clock change, with validity edges off the grid."""
    anchor = draw(st.sampled_from(ANCHORS))
    process_frequency = draw(st.sampled_from(FINE + COARSE))
    process_start = anchor + timedelta(minutes=draw(st.integers(-72 * 60, 24 * 60)))
    process = grid(process_start, process_frequency, draw(st.sampled_from(ZONES)), None)
    count = draw(st.integers(1, 40))
    process = grid(process_start, process_frequency, str(process.zone),
                   process.time_of(count) - timedelta(minutes=draw(st.integers(0, 14))))
    feed_start = process_start - timedelta(minutes=draw(st.integers(-24 * 60, 40 * 24 * 60)))
    feed_end = feed_start + timedelta(minutes=draw(st.integers(60, 500 * 24 * 60)))
    feed = grid(feed_start, draw(st.sampled_from(frequencies)), draw(st.sampled_from(ZONES)), feed_end)
    return draw(st.sampled_from(windows)), draw(st.sampled_from(windows)), feed, process


@PROPERTY
@given(setups(FINE, SMALL))
def test_inverse_matches_forward_resolution_on_fine_feeds(setup: tuple[str, str, InstanceGrid, InstanceGrid]) -> None:
    assert_inverse_matches(*setup)


@PROPERTY
@given(setups(COARSE, LARGE))
def test_inverse_matches_forward_resolution_on_coarse_feeds(
        setup: tuple[str, str, InstanceGrid, InstanceGrid]) -> None:
    assert_inverse_matches(*setup)


@PROPERTY
@given(setups(FINE + COARSE, SMALL), st.data())
def test_a_batch_of_events_is_read_by_the_union_of_their_readers(
        setup: tuple[str, str, InstanceGrid, InstanceGrid], data: st.DataObject) -> None:
    start, end, feed, process = setup
    readers = forward(start, end, feed, process)
    around = sorted(set(readers) | {feed.start, feed.start + timedelta(minutes=7)})
    # Runs of consecutive instances (where the halving pays) and scattered ones, some read by nothing.
    first = data.draw(st.integers(0, len(around) - 1))
    run = around[first:first + data.draw(st.integers(0, 200))]
    batch = set(run) | set(data.draw(st.lists(st.sampled_from(around), max_size=20)))
    expected = sorted({nominal for t in batch for nominal in readers.get(t, ())})
    ranges = ranges_reading(start, end, feed, process, batch)
    assert [process.time_of(k) for first, last in ranges for k in range(first, last + 1)] == expected
    assert all(a[1] + 1 < b[0] for a, b in zip(ranges, ranges[1:], strict=False))  # apart, oldest first


@pytest.mark.parametrize(("start", "end", "feed_frequency", "process_frequency"), [
    ("now(-1,0)", "now(0,0)", "minutes(15)", "minutes(15)"),
    ("today(0,0)", "now(0,0)", "hours(1)", "hours(1)"),
    ("yesterday(0,0)", "yesterday(23,0)", "hours(1)", "days(1)"),
    ("lastMonth(0,0,0)", "currentMonth(-1,23,0)", "hours(5)", "months(1)"),
    ("lastYear(0,0,0,0)", "currentYear(0,-1,0,0)", "days(1)", "months(1)"),
])
@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York"])
def test_both_clock_changes_in_zones_with_dst(start: str, end: str, feed_frequency: str, process_frequency: str,
                                             zone: str) -> None:
    """Every feed instance around both clock changes of 2026 (ten days each; a year for monthly processes)."""
    if process_frequency == "months(1)":
        periods = [(utc(2025, 1, 1), utc(2026, 1, 1), utc(2027, 1, 1))]
    else:
        periods = [(utc(2026, 3, 20), utc(2026, 3, 24), utc(2026, 4, 3)),
                   (utc(2026, 10, 20), utc(2026, 10, 24), utc(2026, 11, 3))]
    for feed_start, process_start, end_of_validity in periods:
        assert_inverse_matches(start, end, grid(feed_start, feed_frequency, zone, end_of_validity),
                               grid(process_start, process_frequency, zone, end_of_validity))


def test_berlin_spring_forward_day_and_its_next_midnight() -> None:
    # 2026-03-29 in Berlin has 23 hours: 00:00 CET is 23:00Z the day before, 23:00 CEST is 21:00Z.
    feed = grid(utc(2026, 1, 1), "hours(1)", "Europe/Berlin", utc(2027, 1, 1))
    process = grid(utc(2025, 12, 31, 23), "days(1)", "Europe/Berlin", utc(2027, 1, 1))
    for t in (utc(2026, 3, 28, 23), utc(2026, 3, 29, 1), utc(2026, 3, 29, 21)):
        assert readers_of("yesterday(0,0)", "yesterday(23,0)", feed, process, t).times == (utc(2026, 3, 29, 22),)
    # yesterday(23,0) is 23 elapsed hours after midnight: on a 23-hour day, the next midnight (22:00Z), which is
    # then read by two instances, as its own day's first hour and as the short day's 24th instance.
    assert readers_of("yesterday(0,0)", "yesterday(23,0)", feed, process, utc(2026, 3, 29, 22)).times == (
        utc(2026, 3, 29, 22), utc(2026, 3, 30, 22))


def test_new_york_fall_back_hour_after_23_elapsed_hours_is_in_no_window() -> None:
    # 2026-11-01 in New York has 25 hours: both 01:00 (05:00Z EDT and 06:00Z EST) are read by that day's
    # instance; today(23,0) is 23 elapsed hours after midnight, 22:00 EST, so the hour of 23:00 EST is in no window.
    feed = grid(utc(2026, 1, 1), "hours(1)", "America/New_York", utc(2027, 1, 1))
    process = grid(utc(2026, 1, 1, 5), "days(1)", "America/New_York", utc(2027, 1, 1))
    day = utc(2026, 11, 1, 4)
    for t in (utc(2026, 11, 1, 5), utc(2026, 11, 1, 6), utc(2026, 11, 2, 3)):
        assert readers_of("today(0,0)", "today(23,0)", feed, process, t).times == (day,)
    assert readers_of("today(0,0)", "today(23,0)", feed, process, utc(2026, 11, 2, 4)).times == ()
    assert readers_of("today(0,0)", "today(23,0)", feed, process, utc(2026, 11, 2, 5)).times == (utc(2026, 11, 2, 5),)


def test_validity_edges_and_times_off_the_grid() -> None:
    feed = grid(utc(2026, 1, 1), "hours(1)", "UTC", utc(2026, 1, 2))
    process = grid(utc(2026, 1, 1, 3), "hours(1)", "UTC", utc(2026, 1, 1, 6))
    window = ("now(-2,0)", "now(0,0)")
    assert readers_of(*window, feed, process, utc(2026, 1, 1, 2)).times == (utc(2026, 1, 1, 3), utc(2026, 1, 1, 4))
    assert readers_of(*window, feed, process, utc(2026, 1, 1, 5)).times == (utc(2026, 1, 1, 5),)
    assert readers_of(*window, feed, process, utc(2026, 1, 1, 6)).times == ()  # only after the process's end
    assert readers_of(*window, feed, process, utc(2026, 1, 1, 0)).times == ()  # only before the process's start
    assert readers_of(*window, feed, process, utc(2026, 1, 1, 4, 30)).times == ()  # not a feed instance
    assert readers_of(*window, feed, process, utc(2026, 1, 2)).times == ()  # the feed's validity end


def test_a_minute_grid_of_nine_thousand_years_is_not_walked() -> None:
    """About 4.7 billion process instances: only a search on the index answers this at once."""
    feed = grid(utc(1000, 1, 1), "minutes(1)", "Europe/Berlin", None)
    process = grid(utc(1000, 1, 1), "minutes(1)", "Europe/Berlin", utc(9999, 1, 1))
    span = readers_of("lastMonth(0,0,0)", "now(0,0)", feed, process, utc(5000, 6, 15, 12, 1))
    assert span.times[0] == utc(5000, 6, 15, 12, 1) and len(span) > 31 * 1440
    assert span.times[-1] == utc(5000, 7, 31, 21, 59)  # the last minute of July, Berlin time (CEST in this model)


@pytest.mark.parametrize(("expression", "reason"), [
    ("latest(0)", r"latest\(\) picks among the feed instances that exist"),
    ("future(0, 3)", r"future\(\) picks among the feed instances that exist"),
    ("dateOffset(instanceTime(), -1, 'DAY')", r"dateOffset by a calendar unit steps back"),
    ("dateOffset(dateOffset(now(0,0), 1, 'MONTH'), 1, 'HOUR')", r"dateOffset by a calendar unit steps back"),
])
def test_windows_that_pick_or_step_back_are_not_invertible(expression: str, reason: str) -> None:
    feed = grid(utc(2026, 1, 1), "hours(1)", "UTC", utc(2027, 1, 1))
    with pytest.raises(NotInvertible, match=reason):
        readers_of(expression, "now(0,0)", feed, feed, utc(2026, 2, 1))


PROCESS = """\
    kind: process
    name: clicks-compare
    timezone: Europe/Berlin
    clusters:
      - name: primary
        validity: {start: "2026-03-01T23:00Z", end: "2026-04-30T22:00Z"}
    frequency: days(1)
    inputs:
      - {name: today, feed: clicks, start: "today(0,0)", end: "today(23,0)"}
      - {name: week, feed: clicks, start: "today(-144,0)", end: "today(0,0)", optional: true}
      - {name: summary, feed: clicks-hourly-summary, start: "yesterday(0,0)", end: "yesterday(0,0)"}
      - {name: latest, feed: clicks-daily, start: "latest(0)", end: "latest(0)", optional: true}
    outputs:
      - {name: out, feed: clicks-daily, instance: "today(0,0)"}
    workflow: {engine: spark-sql, path: workflows/report.sql}
    """


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> ConfigRepo:
    root = tmp_path_factory.mktemp("repo") / "conf"
    shutil.copytree(TEMPLATE, root)
    (root / "processes/clicks-compare.yaml").write_text(textwrap.dedent(PROCESS))
    return ConfigRepo.load(root)


def test_instances_reading_one_input_of_a_process(repo: ConfigRepo) -> None:
    # The process's instances are Berlin midnights (22:00Z in summer time); its windows are evaluated in the
    # feeds' zone, UTC: today(0,0) of 2026-03-29T22:00Z is 2026-03-29T00:00Z.
    process = repo.process("clicks-compare")
    assert instances_reading(repo, process, "primary", "today", utc(2026, 3, 29, 10)).times == (
        utc(2026, 3, 29, 22),)
    week = instances_reading(repo, process, "primary", "week", utc(2026, 3, 29, 10)).times
    assert week == tuple(utc(2026, 3, 30, 22) + timedelta(days=n) for n in range(6))
    with pytest.raises(UsageError, match=r"process 'clicks-compare' has no input 'nope': its inputs are today, week"):
        instances_reading(repo, process, "primary", "nope", utc(2026, 3, 29, 10))
    with pytest.raises(NotInvertible, match=r"input 'latest' of process 'clicks-compare' cannot be triggered by data"):
        instances_reading(repo, process, "primary", "latest", utc(2026, 3, 29))


def test_candidates_are_the_union_over_events_and_inputs(repo: ConfigRepo) -> None:
    process = repo.process("clicks-compare")
    events = [("clicks", utc(2026, 3, 29, 10)), ("clicks", utc(2026, 3, 29, 10)),
              ("clicks-hourly-summary", utc(2026, 4, 10)), ("visits", utc(2026, 3, 29)),
              ("clicks", utc(2026, 3, 29, 10, 30))]  # a duplicate, a feed it does not read, a time off the grid
    assert candidate_instances(repo, process, "primary", events) == (
        *(utc(2026, 3, 29, 22) + timedelta(days=n) for n in range(7)), utc(2026, 4, 11, 22))
    assert candidate_instances(repo, process, "primary", []) == ()


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(-10, 70), st.integers(0, 62))
def test_galloping_search_finds_the_first_true(low: int, span: int, guess: int, answer: int) -> None:
    high = low + span
    assert _first_true(low, high, guess, lambda k: k >= answer) == min(max(answer, low), high + 1)


def test_a_window_end_beyond_the_year_9999_lies_beyond_the_event() -> None:
    """The last instances' now(48,0) cannot be written; it is later than any event, as its nominal time is."""
    feed = grid(utc(9999, 1, 1), "hours(1)", "UTC", None)
    process = grid(utc(9999, 1, 1), "hours(1)", "UTC", utc(9999, 12, 31, 23))
    span = readers_of("now(-1,0)", "now(48,0)", feed, process, utc(9999, 12, 30))
    assert span.times == tuple(utc(9999, 12, 28) + timedelta(hours=n) for n in range(50))
