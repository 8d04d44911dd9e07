"""The process's timing rules: default timeout, deadline (calendar days across DST), attempts, retry delays
and the poll intervals of a waiting run."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from itertools import islice
from zoneinfo import ZoneInfo

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, make_runner_repo, utc
from toolkit.actions.process_runner.retry_policy import (
    attempts_of,
    deadline_of,
    retry_delay_seconds,
    seconds_until,
)
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.model import Policy, Retry
from toolkit.core.entities.timeouts import process_timeout
from toolkit.services.runtime.polling import poll_intervals

UTC_ZONE, BERLIN = ZoneInfo("UTC"), ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def runner_repo(tmp_path_factory: pytest.TempPathFactory) -> RunnerRepo:
    return make_runner_repo(tmp_path_factory.mktemp("policy"))


def retry(policy: Policy, delay: str, attempts: int = 3) -> Retry:
    return Retry(policy=policy, delay=Frequency.parse(delay), attempts=attempts)


@pytest.mark.parametrize(("process", "timeout"), [
    ("hourly-no-timeout", Frequency(TimeUnit.HOURS, 6)),  # 6 x hours(1)
    ("five-minutes", Frequency(TimeUnit.MINUTES, 30)),  # 6 x minutes(5) = the 30 minutes minimum
    ("berlin-daily", Frequency(TimeUnit.DAYS, 6)),
    ("hourly-clicks-summary", Frequency(TimeUnit.HOURS, 4)),  # its own timeout
    ("daily-clicks-rollup", Frequency(TimeUnit.HOURS, 12)),
])
def test_timeout_of(runner_repo: RunnerRepo, process: str, timeout: Frequency) -> None:
    assert process_timeout(runner_repo.repo.process(process)) == timeout


def test_a_short_frequency_gets_the_30_minute_minimum(runner_repo: RunnerRepo) -> None:
    every_minute = dataclasses.replace(runner_repo.repo.process("five-minutes"),
                                       frequency=Frequency(TimeUnit.MINUTES, 1))
    assert process_timeout(every_minute) == Frequency(TimeUnit.MINUTES, 30)


def test_deadline_of(runner_repo: RunnerRepo) -> None:
    repo = runner_repo.repo
    assert deadline_of(repo.process("hourly-no-timeout"), utc(2026, 11, 21, 10), UTC_ZONE) == utc(2026, 11, 21, 16)
    assert deadline_of(repo.process("five-minutes"), utc(2026, 11, 21, 23, 55), UTC_ZONE) == utc(2026, 11, 22, 0, 25)
    # six calendar days in Berlin across the end of summer time (25 October 2026): local midnight to local
    # midnight, 145 hours
    start = utc(2026, 10, 23, 22)  # 24 October 00:00 CEST
    deadline = deadline_of(repo.process("berlin-daily"), start, BERLIN)
    assert deadline == utc(2026, 10, 29, 23)  # 30 October 00:00 CET
    assert deadline - start == timedelta(hours=145)


@pytest.mark.parametrize(("given", "attempts"), [
    (None, 1),
    (retry(Policy.PERIODIC, "minutes(5)", 3), 3),
    (retry(Policy.EXP_BACKOFF, "minutes(10)", 5), 5),
    (retry(Policy.PERIODIC, "minutes(5)", 0), 1),
    (retry(Policy.FINAL, "minutes(5)", 7), 2),  # one immediate retry, whatever `attempts` says
])
def test_attempts_of(given: Retry | None, attempts: int) -> None:
    assert attempts_of(given) == attempts


def test_attempts_of_the_template_processes(runner_repo: RunnerRepo) -> None:
    assert attempts_of(runner_repo.repo.process("hourly-clicks-summary").retry) == 3
    assert attempts_of(runner_repo.repo.process("hourly-no-timeout").retry) == 1


def test_periodic_retry_waits_the_delay_each_time() -> None:
    periodic = retry(Policy.PERIODIC, "minutes(5)")
    assert [retry_delay_seconds(periodic, n, utc(2026, 11, 21, 10), UTC_ZONE) for n in (1, 2, 3)] == [300.0] * 3


def test_exp_backoff_retry_doubles() -> None:
    backoff = retry(Policy.EXP_BACKOFF, "minutes(10)")
    assert [retry_delay_seconds(backoff, n, utc(2026, 11, 21, 10), UTC_ZONE) for n in (1, 2, 3, 4)] == \
        [600.0, 1200.0, 2400.0, 4800.0]


def test_final_retry_is_immediate() -> None:
    assert retry_delay_seconds(retry(Policy.FINAL, "hours(1)"), 1, utc(2026, 11, 21, 10), UTC_ZONE) == 0.0


def test_a_day_of_delay_is_a_calendar_day_in_the_zone() -> None:
    # summer time starts in Berlin on 29 March 2026: that day has 23 hours
    daily = retry(Policy.PERIODIC, "days(1)")
    assert retry_delay_seconds(daily, 1, utc(2026, 3, 28, 12), BERLIN) == 23 * 3600.0
    assert retry_delay_seconds(daily, 1, utc(2026, 3, 28, 12), UTC_ZONE) == 24 * 3600.0


def test_poll_intervals_double_up_to_five_minutes() -> None:
    assert list(islice(poll_intervals(), 8)) == [10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0, 300.0]
    assert list(islice(poll_intervals(1.0, 5.0), 5)) == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_seconds_until() -> None:
    now = datetime(2026, 11, 21, 10, tzinfo=ZoneInfo("UTC"))
    assert seconds_until(now, now + timedelta(minutes=2, milliseconds=500)) == 120.5
    assert seconds_until(now, now - timedelta(hours=1)) == 0.0

