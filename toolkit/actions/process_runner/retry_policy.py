"""The process's timing rules: how long an instance waits for its inputs, how long between retries, how
often a waiting run looks again. Pure: times are passed in."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from toolkit.core.el.shift import shift
from toolkit.core.entities.model import Policy, Process, Retry
from toolkit.core.entities.timeouts import process_timeout


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


def seconds_until(now: datetime, then: datetime) -> float:
    return max((then - now) / timedelta(seconds=1), 0.0)
