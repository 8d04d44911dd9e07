"""The states a cell of the status page shows, each with its colour, and how a ledger's record becomes one.

Only what the ledger records is shown: a process instance's status as `toolkit status` shows it (a dead RUNNING
run is KILLED, a never-run instance WAITING, a held one SUSPENDED), told apart further by its newest attempt (a late
rerun, a failure of a blocking quality gate); a feed instance's last dataset event on the cluster (published,
replaced, replicated in from another cluster, evicted) or none yet. BLOCKED is no state here: a run refused by
safemode or a busy slot records nothing. An SLA miss is not a state but a mark on the cell (its outline), so a
missed instance still says whether it is waiting, running or failed.
"""

from __future__ import annotations

from enum import Enum

from toolkit.core.ledger.records import EVICTED, PUBLISHED, REPLACED
from toolkit.statuses import Status

REPLICATION_PRODUCER = "replication:"  # a replicated instance's event names its producer `replication:<sources>`
LATE_RERUN = "LATE_RERUN"  # an attempt's kind (toolkit/core/ledger/records.py ATTEMPT_KINDS)
HELD = "SUSPENDED"  # toolkit/views/status/instance_rows.py's row status of a held instance


class State(str, Enum):
    SUCCEEDED = "succeeded"
    LATE_RERUN = "late-rerun"
    RUNNING = "running"
    WAITING = "waiting"
    FAILED = "failed"
    QUALITY_BLOCKED = "quality-blocked"
    TIMED_OUT = "timed-out"
    KILLED = "killed"
    SKIPPED = "skipped"
    SUSPENDED = "suspended"
    PUBLISHED = "published"
    REPLACED = "replaced"
    REPLICATED = "replicated"
    EVICTED = "evicted"

    def __str__(self) -> str:
        return self.value


# Each state's fill, and whether it needs a person (the header counts those).
COLOURS: dict[State, str] = {
    State.SUCCEEDED: "#52b788",
    State.PUBLISHED: "#52b788",
    State.REPLACED: "#2d6a4f",
    State.REPLICATED: "#74c69d",
    State.LATE_RERUN: "#1b9aaa",
    State.RUNNING: "#4ea8de",
    State.WAITING: "#ffd166",
    State.FAILED: "#d62828",
    State.QUALITY_BLOCKED: "#9d4edd",
    State.TIMED_OUT: "#f77f00",
    State.KILLED: "#7f1d1d",
    State.SKIPPED: "#c9c9c9",
    State.SUSPENDED: "#6c757d",
    State.EVICTED: "#e9e4d4",
}
FAILURES = (State.FAILED, State.QUALITY_BLOCKED, State.TIMED_OUT, State.KILLED)

_BY_STATUS = {Status.SUCCEEDED.value: State.SUCCEEDED, Status.RUNNING.value: State.RUNNING,
              Status.WAITING.value: State.WAITING, Status.FAILED.value: State.FAILED,
              Status.TIMEDOUT.value: State.TIMED_OUT, Status.KILLED.value: State.KILLED,
              Status.SKIPPED.value: State.SKIPPED, HELD: State.SUSPENDED}


def process_state(status: str, newest_attempt_kind: str | None, quality_blocked: bool) -> State:
    """A process instance's state from its row's status (as `toolkit status` shows it) and its newest attempt:
    a success of a late rerun, or a failure where a blocking quality gate failed, are told apart."""
    state = _BY_STATUS.get(status)
    if state is None:
        raise ValueError(f"no state of the status page for the process status {status!r}")
    if state is State.SUCCEEDED and newest_attempt_kind == LATE_RERUN:
        return State.LATE_RERUN
    if state is State.FAILED and quality_blocked:
        return State.QUALITY_BLOCKED
    return state


def feed_state(kind: str | None, producer: str | None) -> State:
    """A feed instance's state from its last dataset event on the cluster (None: no event yet, WAITING)."""
    if kind is None:
        return State.WAITING
    if kind == EVICTED:
        return State.EVICTED
    if producer is not None and producer.startswith(REPLICATION_PRODUCER):
        return State.REPLICATED
    if kind == REPLACED:
        return State.REPLACED
    if kind == PUBLISHED:
        return State.PUBLISHED
    raise ValueError(f"no state of the status page for the dataset event kind {kind!r}")


# The status `toolkit rerun --status` selects a process instance of each state by (as `toolkit status` shows it).
RERUN_STATUS: dict[State, str] = {
    State.SUCCEEDED: Status.SUCCEEDED.value, State.LATE_RERUN: Status.SUCCEEDED.value,
    State.RUNNING: Status.RUNNING.value, State.WAITING: Status.WAITING.value, State.FAILED: Status.FAILED.value,
    State.QUALITY_BLOCKED: Status.FAILED.value, State.TIMED_OUT: Status.TIMEDOUT.value,
    State.KILLED: Status.KILLED.value, State.SKIPPED: Status.SKIPPED.value}
