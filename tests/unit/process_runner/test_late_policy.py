"""Late-data checks of process instances: the cut-off from the late inputs' windows and feeds, the schedule
of each policy (closed form, checked against a naive enumeration), DST in the process's zone, and when a
check is due or the instance is closed for late data."""

from __future__ import annotations

import dataclasses
import shutil
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit.actions.process_runner.late_policy import LateSchedule, late_cutoff, late_input_names, late_schedule
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.shift import shift
from toolkit.core.entities.model import Policy
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
UTC = timezone.utc
BERLIN = ZoneInfo("Europe/Berlin")


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def checks(schedule: LateSchedule) -> list[datetime]:
    """Every scheduled check, walked with next_after from the instance time (the schedules here are short)."""
    found: list[datetime] = []
    now = schedule.instance
    while (now := schedule.next_after(now)) is not None:
        found.append(now)
        assert len(found) < 1000, "a schedule that does not end"
    return found


def hourly_process(name: str, inputs: list[str], late: str) -> str:
    """An hourly UTC process on `primary` reading `inputs` (YAML list items), with a late-process block."""
    head = textwrap.dedent(f"""\
        kind: process
        name: {name}
        clusters:
          - name: primary
            validity: {{start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}}
        frequency: hours(1)
        workflow: {{engine: pyspark, path: workflows/hourly_clicks_summary.py}}
        inputs:
        """)
    return head + "".join(f"  {line}\n" for line in inputs) + textwrap.dedent(late)


CLICKS_WINDOW = '- {name: clicks, feed: clicks, start: "now(-2,0)", end: "now(0,0)"}'

EXTRA = {
    # Daily orders may still change 30 hours after their day starts.
    "feeds/orders.yaml": """\
        kind: feed
        name: orders
        frequency: days(1)
        late-arrival: {cut-off: hours(30)}
        clusters:
          - name: primary
            validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}
        locations: {data: "/data/orders/${YEAR}/${MONTH}/${DAY}"}
        """,
    # Only exists from December: a process instance of November reads an empty window.
    "feeds/new-orders.yaml": """\
        kind: feed
        name: new-orders
        frequency: hours(1)
        late-arrival: {cut-off: hours(20)}
        clusters:
          - name: primary
            validity: {start: "2026-12-01T00:00Z", end: "2027-01-01T00:00Z"}
        locations: {data: "/data/new-orders/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
        """,
    # Daily at local midnight in Berlin; sales of a day may change for three calendar days.
    "feeds/berlin-sales.yaml": """\
        kind: feed
        name: berlin-sales
        frequency: days(1)
        timezone: Europe/Berlin
        late-arrival: {cut-off: days(3)}
        clusters:
          - name: primary
            validity: {start: "2025-12-31T23:00Z", end: "2027-12-31T23:00Z"}
        locations: {data: "/data/berlin-sales/${YEAR}/${MONTH}/${DAY}"}
        """,
    "processes/berlin-report.yaml": """\
        kind: process
        name: berlin-report
        timezone: Europe/Berlin
        clusters:
          - name: primary
            validity: {start: "2026-01-01T23:00Z", end: "2027-12-31T23:00Z"}
        frequency: days(1)
        inputs:
          - {name: sales, feed: berlin-sales, start: "today(0,0)", end: "today(0,0)"}
        workflow: {engine: spark-sql, path: workflows/daily_clicks_rollup.sql}
        late-process:
          policy: periodic
          delay: days(1)
          late-inputs:
            - {input: sales, workflow-path: workflows/daily_clicks_rollup.sql}
        """,
    "processes/clicks-periodic.yaml": hourly_process("clicks-periodic", [CLICKS_WINDOW], """\
        late-process:
          policy: periodic
          delay: hours(2)
          late-inputs:
            - {input: clicks, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    "processes/clicks-final.yaml": hourly_process("clicks-final", [CLICKS_WINDOW], """\
        late-process:
          policy: final
          delay: hours(1)
          late-inputs:
            - {input: clicks, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    # Three late inputs: clicks (T + 6h), orders (T's day + 30h), visits (no late-arrival).
    "processes/three-late-inputs.yaml": hourly_process("three-late-inputs", [
        CLICKS_WINDOW,
        '- {name: orders, feed: orders, start: "today(0,0)", end: "today(0,0)"}',
        '- {name: visits, feed: visits, start: "today(0,0)", end: "today(0,0)"}',
    ], """\
        late-process:
          policy: exp-backoff
          delay: hours(1)
          late-inputs:
            - {input: clicks, workflow-path: workflows/hourly_clicks_summary.py}
            - {input: orders, workflow-path: workflows/hourly_clicks_summary.py}
            - {input: visits, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    # Orders are read but not a late input: their later cut-off must not count.
    "processes/only-clicks-late.yaml": hourly_process("only-clicks-late", [
        CLICKS_WINDOW,
        '- {name: orders, feed: orders, start: "today(0,0)", end: "today(0,0)"}',
    ], """\
        late-process:
          policy: exp-backoff
          delay: hours(1)
          late-inputs:
            - {input: clicks, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    "processes/visits-late.yaml": hourly_process("visits-late", [
        '- {name: visits, feed: visits, start: "today(0,0)", end: "today(0,0)"}',
    ], """\
        late-process:
          policy: periodic
          delay: hours(1)
          late-inputs:
            - {input: visits, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    "processes/latest-clicks.yaml": hourly_process("latest-clicks", [
        '- {name: recent, feed: clicks, start: "latest(0)", end: "latest(0)"}',
    ], """\
        late-process:
          policy: periodic
          delay: hours(1)
          late-inputs:
            - {input: recent, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    "processes/new-orders-late.yaml": hourly_process("new-orders-late", [
        '- {name: orders, feed: new-orders, start: "now(-1,0)", end: "now(0,0)"}',
    ], """\
        late-process:
          policy: periodic
          delay: hours(4)
          late-inputs:
            - {input: orders, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    # Reads the clicks of the same hour one day earlier: their cut-off (T - 18h) is before T.
    "processes/yesterday-clicks.yaml": hourly_process("yesterday-clicks", [
        '- {name: clicks, feed: clicks, start: "now(-24,0)", end: "now(-24,0)"}',
    ], """\
        late-process:
          policy: periodic
          delay: hours(1)
          late-inputs:
            - {input: clicks, workflow-path: workflows/hourly_clicks_summary.py}
        """),
    "processes/unknown-late-input.yaml": hourly_process("unknown-late-input", [CLICKS_WINDOW], """\
        late-process:
          policy: periodic
          delay: hours(1)
          late-inputs:
            - {input: clickz, workflow-path: workflows/hourly_clicks_summary.py}
        """),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> ConfigRepo:
    root = tmp_path_factory.mktemp("late") / "conf"
    shutil.copytree(TEMPLATE, root)
    for relative, text in EXTRA.items():
        (root / relative).write_text(textwrap.dedent(text))
    return ConfigRepo.load(root)


def schedule_of(repo: ConfigRepo, process: str, t: datetime, cluster: str = "primary") -> LateSchedule:
    schedule = late_schedule(repo, repo.process(process), cluster, t)
    assert schedule is not None
    return schedule


# -- the template's process --------------------------------------------------------------------------


def test_template_process_backs_off_exponentially_up_to_the_clicks_cutoff(repo: ConfigRepo) -> None:
    process = repo.process("hourly-clicks-summary")
    assert late_input_names(process) == ("clicks",)
    schedule = schedule_of(repo, "hourly-clicks-summary", utc(2026, 11, 21, 10))
    # The window is 08:00..10:00; its last instance 10:00 plus the feed's cut-off hours(6).
    assert schedule.cutoff == utc(2026, 11, 21, 16)
    assert late_cutoff(repo, process, "primary", utc(2026, 11, 21, 10)) == utc(2026, 11, 21, 16)
    assert (schedule.policy, schedule.delay) == (Policy.EXP_BACKOFF, Frequency(TimeUnit.HOURS, 1))
    assert checks(schedule) == [utc(2026, 11, 21, 11), utc(2026, 11, 21, 12), utc(2026, 11, 21, 14),
                                utc(2026, 11, 21, 16)]
    assert schedule.closes_at == utc(2026, 11, 21, 16)


@pytest.mark.parametrize(("now", "latest", "following"), [
    (utc(2026, 11, 21, 9), None, utc(2026, 11, 21, 11)),
    (utc(2026, 11, 21, 10), None, utc(2026, 11, 21, 11)),
    (utc(2026, 11, 21, 10, 59), None, utc(2026, 11, 21, 11)),
    (utc(2026, 11, 21, 11), utc(2026, 11, 21, 11), utc(2026, 11, 21, 12)),
    (utc(2026, 11, 21, 13, 30), utc(2026, 11, 21, 12), utc(2026, 11, 21, 14)),
    (utc(2026, 11, 21, 15, 59), utc(2026, 11, 21, 14), utc(2026, 11, 21, 16)),
    (utc(2026, 11, 21, 16), utc(2026, 11, 21, 16), None),
    (utc(2027, 5, 1), utc(2026, 11, 21, 16), None),
])
def test_template_latest_and_next_check(repo: ConfigRepo, now: datetime, latest: datetime | None,
                                        following: datetime | None) -> None:
    schedule = schedule_of(repo, "hourly-clicks-summary", utc(2026, 11, 21, 10))
    assert schedule.latest_due_at_or_before(now) == latest
    assert schedule.next_after(now) == following


def test_process_without_late_process_has_no_schedule(repo: ConfigRepo) -> None:
    process = repo.process("daily-clicks-rollup")
    assert late_input_names(process) == ()
    assert late_schedule(repo, process, "primary", utc(2026, 11, 21)) is None
    assert late_cutoff(repo, process, "primary", utc(2026, 11, 21)) is None


# -- policies -------------------------------------------------------------------------------------------


def test_periodic_checks_every_delay_up_to_and_at_the_cutoff(repo: ConfigRepo) -> None:
    schedule = schedule_of(repo, "clicks-periodic", utc(2026, 11, 21, 10))
    assert schedule.cutoff == utc(2026, 11, 21, 16)
    # 16:00 is both T + 3 * hours(2) and the cut-off: listed once.
    assert checks(schedule) == [utc(2026, 11, 21, 12), utc(2026, 11, 21, 14), utc(2026, 11, 21, 16)]
    assert schedule.latest_due_at_or_before(utc(2026, 11, 21, 13, 59)) == utc(2026, 11, 21, 12)


def test_periodic_adds_the_cutoff_when_it_is_off_the_delay_grid(repo: ConfigRepo) -> None:
    schedule = dataclasses.replace(schedule_of(repo, "clicks-periodic", utc(2026, 11, 21, 10)),
                                   delay=Frequency(TimeUnit.HOURS, 4))
    assert checks(schedule) == [utc(2026, 11, 21, 14), utc(2026, 11, 21, 16)]
    assert schedule.latest_due_at_or_before(utc(2026, 11, 21, 15)) == utc(2026, 11, 21, 14)
    assert schedule.next_after(utc(2026, 11, 21, 15)) == utc(2026, 11, 21, 16)


def test_periodic_with_a_delay_longer_than_the_late_window_checks_at_the_cutoff_only(repo: ConfigRepo) -> None:
    schedule = dataclasses.replace(schedule_of(repo, "clicks-periodic", utc(2026, 11, 21, 10)),
                                   delay=Frequency(TimeUnit.DAYS, 1))
    assert checks(schedule) == [utc(2026, 11, 21, 16)]
    assert schedule.closes_at == utc(2026, 11, 21, 16)


def test_final_checks_once_at_the_cutoff(repo: ConfigRepo) -> None:
    schedule = schedule_of(repo, "clicks-final", utc(2026, 11, 21, 10))
    assert schedule.policy is Policy.FINAL
    assert checks(schedule) == [utc(2026, 11, 21, 16)]
    assert schedule.latest_due_at_or_before(utc(2026, 11, 21, 15, 59)) is None
    assert schedule.latest_due_at_or_before(utc(2026, 11, 21, 16, 30)) == utc(2026, 11, 21, 16)
    assert schedule.is_due(utc(2026, 11, 21, 16), []) is True  # a scheduler calling on a grid meets it
    assert schedule.is_due(utc(2026, 11, 21, 16, 30), []) is False  # after the cut-off: closed
    assert schedule.is_due(utc(2026, 11, 21, 15), []) is False


def test_exp_backoff_over_a_long_late_window_doubles_the_gap(repo: ConfigRepo) -> None:
    schedule = dataclasses.replace(schedule_of(repo, "hourly-clicks-summary", utc(2026, 11, 21, 10)),
                                   cutoff=utc(2026, 12, 1, 10))  # T + 240 hours
    assert [t - utc(2026, 11, 21, 10) for t in checks(schedule)] == [
        timedelta(hours=h) for h in (1, 2, 4, 8, 16, 32, 64, 128, 240)]
    assert schedule.latest_due_at_or_before(utc(2026, 11, 26)) == utc(2026, 11, 24, 2)  # T + 64h
    assert schedule.next_after(utc(2026, 11, 26)) == utc(2026, 11, 26, 18)  # T + 128h


# -- the cut-off ------------------------------------------------------------------------------------------


def test_the_latest_cutoff_of_several_late_inputs_wins(repo: ConfigRepo) -> None:
    process = repo.process("three-late-inputs")
    assert late_input_names(process) == ("clicks", "orders", "visits")
    # clicks: 10:00 + 6h = 16:00; orders: the day's instance 00:00 + 30h = next day 06:00; visits: none.
    assert late_cutoff(repo, process, "primary", utc(2026, 11, 21, 10)) == utc(2026, 11, 22, 6)
    schedule = schedule_of(repo, "three-late-inputs", utc(2026, 11, 21, 10))
    assert checks(schedule)[-3:] == [utc(2026, 11, 21, 18), utc(2026, 11, 22, 2), utc(2026, 11, 22, 6)]


def test_inputs_that_are_not_late_inputs_do_not_move_the_cutoff(repo: ConfigRepo) -> None:
    process = repo.process("only-clicks-late")
    assert late_cutoff(repo, process, "primary", utc(2026, 11, 21, 10)) == utc(2026, 11, 21, 16)


def test_late_input_on_a_feed_without_late_arrival_never_checks(repo: ConfigRepo) -> None:
    schedule = schedule_of(repo, "visits-late", utc(2026, 11, 21, 10))
    assert schedule.cutoff is None
    assert schedule.has_checks is False
    assert schedule.latest_due_at_or_before(utc(2026, 11, 22)) is None
    assert schedule.next_after(utc(2026, 11, 21, 10)) is None
    assert schedule.is_due(utc(2026, 11, 21, 11), []) is False
    assert schedule.closed(utc(2026, 11, 21, 10)) is True


def test_latest_window_is_skipped_without_availability(repo: ConfigRepo) -> None:
    process = repo.process("latest-clicks")
    assert late_cutoff(repo, process, "primary", utc(2026, 11, 21, 10)) is None


def test_empty_window_contributes_nothing(repo: ConfigRepo) -> None:
    process = repo.process("new-orders-late")
    assert late_cutoff(repo, process, "primary", utc(2026, 11, 21, 10)) is None
    # Once the feed exists, the window 09:00..10:00 ends at 10:00: cut-off 20 hours later.
    assert late_cutoff(repo, process, "primary", utc(2026, 12, 5, 10)) == utc(2026, 12, 6, 6)
    # Half the window before the feed's first instance: its last instance still counts.
    assert late_cutoff(repo, process, "primary", utc(2026, 12, 1, 0)) == utc(2026, 12, 1, 20)


def test_cutoff_before_the_instance_schedules_nothing(repo: ConfigRepo) -> None:
    schedule = schedule_of(repo, "yesterday-clicks", utc(2026, 11, 21, 10))
    assert schedule.cutoff == utc(2026, 11, 20, 16)  # reported for status, but already past at T
    assert schedule.has_checks is False
    assert schedule.latest_due_at_or_before(utc(2026, 11, 21, 11)) is None
    assert schedule.next_after(utc(2026, 11, 20)) is None
    assert schedule.closed(utc(2026, 11, 20)) is True
    assert schedule.is_due(utc(2026, 11, 21, 11), []) is False


def test_late_input_that_is_not_an_input_is_an_error(repo: ConfigRepo) -> None:
    with pytest.raises(UsageError, match=r"late-inputs input 'clickz', which is not one of its inputs \(clicks\)"):
        late_schedule(repo, repo.process("unknown-late-input"), "primary", utc(2026, 11, 21, 10))


def test_time_that_is_no_instance_of_the_process_is_an_error(repo: ConfigRepo) -> None:
    with pytest.raises(UsageError, match=r"not an instance of process 'hourly-clicks-summary'"):
        late_schedule(repo, repo.process("hourly-clicks-summary"), "primary", utc(2026, 11, 21, 10, 30))
    with pytest.raises(UsageError, match=r"not defined on cluster 'backup'"):
        late_schedule(repo, repo.process("hourly-clicks-summary"), "backup", utc(2026, 11, 21, 10))


# -- DST in the process's zone ---------------------------------------------------------------------------


def test_daily_checks_stay_at_local_midnight_when_summer_time_ends(repo: ConfigRepo) -> None:
    # Berlin leaves summer time on 2026-10-25 at 03:00 CEST: that local day lasts 25 hours.
    t = utc(2026, 10, 24, 22)  # local midnight of Oct 25 (CEST)
    schedule = schedule_of(repo, "berlin-report", t)
    # The sales of local Oct 25 (instance 22:00Z) plus days(3): local midnight of Oct 28, now CET.
    assert schedule.cutoff == utc(2026, 10, 27, 23)
    assert checks(schedule) == [utc(2026, 10, 25, 23), utc(2026, 10, 26, 23), utc(2026, 10, 27, 23)]
    assert checks(schedule)[0] - t == timedelta(hours=25)
    assert schedule.latest_due_at_or_before(utc(2026, 10, 25, 22, 59)) is None
    assert schedule.closes_at == utc(2026, 10, 27, 23)
    assert schedule.closed(utc(2026, 10, 27, 23)) is False
    assert schedule.closed(utc(2026, 10, 27, 23, 1)) is True


def test_exp_backoff_across_the_start_of_summer_time(repo: ConfigRepo) -> None:
    # Berlin enters summer time on 2026-03-29 at 02:00 CET: that local day lasts 23 hours.
    t = utc(2026, 3, 28, 23)  # local midnight of Mar 29 (CET)
    schedule = dataclasses.replace(schedule_of(repo, "berlin-report", t), policy=Policy.EXP_BACKOFF)
    assert schedule.zone == BERLIN
    assert schedule.cutoff == utc(2026, 3, 31, 22)  # local midnight of Apr 1, CEST
    # T + days(1), T + days(2), then T + days(4) is past the cut-off, which closes the list.
    assert checks(schedule) == [utc(2026, 3, 29, 22), utc(2026, 3, 30, 22), utc(2026, 3, 31, 22)]
    assert schedule.latest_due_at_or_before(utc(2026, 3, 31, 12)) == utc(2026, 3, 30, 22)


# -- when a check is due -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("now", "done", "due"), [
    (utc(2026, 11, 21, 10, 30), [], False),  # nothing scheduled yet
    (utc(2026, 11, 21, 11), [], True),
    (utc(2026, 11, 21, 11), [utc(2026, 11, 21, 11)], False),
    (utc(2026, 11, 21, 11, 30), [utc(2026, 11, 21, 10, 59)], True),  # a check before 11:00 does not count
    (utc(2026, 11, 21, 13), [utc(2026, 11, 21, 11)], True),  # 12:00 was missed: done at the next call
    (utc(2026, 11, 21, 13), [utc(2026, 11, 21, 11), utc(2026, 11, 21, 12, 5)], False),
    (utc(2026, 11, 21, 15), [utc(2026, 11, 21, 14)], False),
    (utc(2026, 11, 21, 16), [utc(2026, 11, 21, 14)], True),  # the cut-off itself
    (utc(2026, 11, 21, 16, 1), [utc(2026, 11, 21, 14)], False),  # just after the cut-off: closed
    (utc(2026, 11, 21, 16), [utc(2026, 11, 21, 16)], False),
    (utc(2026, 11, 21, 17), [utc(2026, 11, 21, 14)], False),
    (utc(2026, 11, 25), [], False),  # long after: closed, even though no check ever ran
])
def test_is_due(repo: ConfigRepo, now: datetime, done: list[datetime], due: bool) -> None:
    schedule = schedule_of(repo, "hourly-clicks-summary", utc(2026, 11, 21, 10))
    assert schedule.is_due(now, done) is due


def test_closed_only_after_the_cutoff(repo: ConfigRepo) -> None:
    schedule = schedule_of(repo, "hourly-clicks-summary", utc(2026, 11, 21, 10))
    assert [schedule.closed(now) for now in (utc(2026, 11, 21, 9), utc(2026, 11, 21, 15, 59),
                                             utc(2026, 11, 21, 16), utc(2026, 11, 21, 16, 1))] == [
        False, False, False, True]


def test_schedule_times_are_normalised_to_utc() -> None:
    t = datetime(2026, 11, 21, 11, tzinfo=BERLIN)  # 10:00Z
    schedule = LateSchedule(t, datetime(2026, 11, 21, 17, tzinfo=BERLIN), Policy.PERIODIC,
                            Frequency(TimeUnit.HOURS, 3))
    assert schedule.instance == utc(2026, 11, 21, 10) and schedule.instance.tzinfo is UTC
    assert checks(schedule) == [utc(2026, 11, 21, 13), utc(2026, 11, 21, 16)]
    with pytest.raises(ValueError, match="aware"):
        LateSchedule(datetime(2026, 11, 21), None, Policy.FINAL, Frequency(TimeUnit.HOURS, 1))


# -- properties: the closed form against a naive enumeration -------------------------------------------------

ZONES = [ZoneInfo(name) for name in ("UTC", "Europe/Berlin", "America/Los_Angeles", "Australia/Lord_Howe")]
BASE = utc(2020, 1, 1)
PROPERTIES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def naive_checks(schedule: LateSchedule) -> list[datetime]:
    """The schedule as the rules state it, step by step with `shift` (independent of the grid)."""
    t, cutoff, delay = schedule.instance, schedule.cutoff, schedule.delay
    if cutoff is None or cutoff <= t:
        return []
    if schedule.policy is Policy.FINAL:
        return [cutoff]
    found = []
    k = 1
    while (step := shift(t, Frequency(delay.unit, delay.count * k), schedule.zone, 1)) < cutoff:
        found.append(step)
        k = k + 1 if schedule.policy is Policy.PERIODIC else k * 2
    return [*found, cutoff]


@st.composite
def schedules(draw: st.DrawFn) -> LateSchedule:
    zone = draw(st.sampled_from(ZONES))
    delay = Frequency(draw(st.sampled_from(list(TimeUnit))), draw(st.integers(1, 5)))
    t = BASE + timedelta(minutes=draw(st.integers(0, 60 * 24 * 365 * 4)))
    if draw(st.booleans()):
        cutoff = None
    else:
        # Up to 40 delays away, off the delay grid by up to one delay either way, sometimes at or before T.
        steps = shift(t, Frequency(delay.unit, delay.count * draw(st.integers(1, 40))), zone, 1)
        off = delay.approx_minutes()
        cutoff = steps + timedelta(minutes=draw(st.integers(-off, off)))
        if draw(st.booleans()):
            cutoff = t + timedelta(minutes=draw(st.integers(-600, 600)))
    return LateSchedule(t, cutoff, draw(st.sampled_from(list(Policy))), delay, zone)


def nows(schedule: LateSchedule) -> st.SearchStrategy[datetime]:
    return st.integers(-60 * 24 * 10, 60 * 24 * 1300).map(lambda m: schedule.instance + timedelta(minutes=m))


@PROPERTIES
@given(st.data())
def test_closed_form_matches_the_enumerated_schedule(data: st.DataObject) -> None:
    schedule = data.draw(schedules())
    now = data.draw(nows(schedule))
    expected = naive_checks(schedule)
    assert checks(schedule) == expected
    assert schedule.latest_due_at_or_before(now) == max((s for s in expected if s <= now), default=None)
    assert schedule.next_after(now) == min((s for s in expected if s > now), default=None)


@PROPERTIES
@given(st.data())
def test_a_check_done_now_is_never_due_again_now(data: st.DataObject) -> None:
    schedule = data.draw(schedules())
    now = data.draw(nows(schedule))
    assert schedule.is_due(now, [now]) is False
    latest = schedule.latest_due_at_or_before(now)
    if latest is not None:
        assert schedule.cutoff is not None and latest <= schedule.cutoff and latest <= now
        assert schedule.is_due(now, []) is not schedule.closed(now)
    else:
        assert schedule.is_due(now, []) is False
