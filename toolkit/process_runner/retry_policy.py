"""The process's timing rules: how long an instance waits for its inputs, how long between retries, how
often a waiting run looks again. Pure: times are passed in."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from toolkit.el.shift import shift
from toolkit.entities.model import Policy, Process, Retry
from toolkit.entities.timeouts import process_timeout

# A waiting run looks again after 10 s, then doubling up to 5 minutes.
FIRST_POLL_SECONDS, LONGEST_POLL_SECONDS = 10.0, 300.0


def deadline_of(process: Process, t: datetime, zone: ZoneInfo) -> datetime:
    """Until this instant the instance at `t` waits for its required inputs; after it, it is TIMEDOUT."""
    return shift(t, process_timeout(process), zone, +1)


def attempts_of(retry: Retry | None) -> int:
    """Attempts in total: `attempts`; `final` is one immediate retry; no retry block means one attempt."""
    if retry is None:
        return 1
    if retry.policy is Policy.FINAL:
        return 2
    return max(retry.attempts, 1)


def retry_delay_seconds(retry: Retry, failed_attempt: int, start: datetime, zone: ZoneInfo) -> float:
    """Seconds to wait after attempt `failed_attempt` (1-based) failed: `periodic` the delay each time,
    `exp-backoff` doubling (delay, 2x, 4x ...), `final` none."""
    if retry.policy is Policy.FINAL:
        return 0.0
    times = 1 if retry.policy is Policy.PERIODIC else 2 ** (failed_attempt - 1)
    return (shift(start, retry.delay, zone, +1) - start).total_seconds() * times


def poll_intervals(first: float = FIRST_POLL_SECONDS, longest: float = LONGEST_POLL_SECONDS) -> Iterator[float]:
    """10 s, 20 s, 40 s ... up to 5 minutes: a waiting run looks again soon at first, then less often."""
    interval = first
    while True:
        yield interval
        interval = min(interval * 2, longest)


def seconds_until(now: datetime, then: datetime) -> float:
    return max((then - now) / timedelta(seconds=1), 0.0)
