"""The SLA state of one instance from its two thresholds and when it got there, and how late it is.

An instance has a low threshold (a feed's `slaLow`, a process's `shouldStartIn`) and a high one (`slaHigh`,
`shouldEndIn`), both after its nominal time; what must happen by each is its arrival for a feed, its first start
(low) and its success (high) for a process. The states, worst first:

- `missed`: not done and the high threshold has passed (late by now minus the threshold);
- `late`: done after the high threshold: it stays a miss (late by the time it came minus the threshold);
- `at-risk`: not done, the high threshold not passed (or none), and the low one missed;
- `late-low`: done by the high threshold, but the low one was missed (a warning after the fact);
- on time (not listed): done in time, or not done and no threshold has passed yet.
`missed` and `late` are misses (exit 1); `at-risk` and `late-low` are warnings.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

MISSED, LATE, AT_RISK, LATE_LOW = "missed", "late", "at-risk", "late-low"
STATES = (MISSED, LATE, AT_RISK, LATE_LOW)
MISSES = (MISSED, LATE)


@dataclass(frozen=True)
class Thresholds:
    """The deadlines of one instance (None where the entity sets no such SLA)."""

    low: datetime | None
    high: datetime | None


@dataclass(frozen=True)
class Judgement:
    state: str
    deadline: datetime  # the threshold missed
    late_seconds: int


def judge(thresholds: Thresholds, now: datetime, low_event: datetime | None,
          done: datetime | None) -> Judgement | None:
    """The state of an instance whose low event (arrival, first start) and completion (arrival, success) happened
    at `low_event` and `done` (None: not yet); None when it is on time. It is judged as of `now`: what happened
    after it has not happened yet, so that a check at a given --now answers the same whenever it runs."""
    high, low = thresholds.high, thresholds.low
    low_event = low_event if low_event is not None and low_event <= now else None
    done = done if done is not None and done <= now else None
    if high is not None:
        if done is None and now > high:
            return Judgement(MISSED, high, _seconds(now - high))
        if done is not None and done > high:
            return Judgement(LATE, high, _seconds(done - high))
    if low is None:
        return None
    if done is None and (low_event is None or low_event > low) and now > low:
        return Judgement(AT_RISK, low, _seconds((low_event or now) - low))
    if done is not None and (low_event is None or low_event > low):
        return Judgement(LATE_LOW, low, _seconds((low_event or done) - low))
    return None


def _seconds(delta: timedelta) -> int:
    return int(delta.total_seconds())
