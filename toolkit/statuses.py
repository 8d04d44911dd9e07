"""The statuses of runs, attempts and instances, in one place: what the ledger records, what `toolkit status`
shows, and what the last status line of every entrypoint says (its exit code is in services/runtime/status.py).

A `str` enum, so a status is written to JSON and compared with the text read back from a record as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum


class Status(str, Enum):
    WAITING = "WAITING"  # required inputs missing; the call may come again (exit 3)
    RUNNING = "RUNNING"  # an attempt is under way (records only)
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    TIMEDOUT = "TIMEDOUT"  # the inputs did not come before the process timeout
    SKIPPED = "SKIPPED"  # nothing to do: outside validity, suspended, done already (exit 4)
    BLOCKED = "BLOCKED"  # safemode, or another run holds the lease or the slot (exit 5)
    KILLED = "KILLED"  # the run holding the instance died (its lease expired), or `toolkit kill` ended it (exit 1)
    INVALID = "INVALID"  # the call itself is wrong (exit 2; status lines only)
    DRY_RUN = "DRY_RUN"  # retention --dry-run (status lines only)

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


# The statuses of a call's parts from mild to severe: a call that ran several (a window of process instances, the
# sources of a replicated instance, the feeds of a cluster's retention) reports the worst of them.
SEVERITY = (Status.SKIPPED, Status.SUCCEEDED, Status.DRY_RUN, Status.WAITING, Status.BLOCKED, Status.TIMEDOUT,
            Status.KILLED, Status.FAILED, Status.INVALID)


def worst(statuses: Iterable[Status], default: Status = Status.SKIPPED) -> Status:
    """The most severe of `statuses` by SEVERITY, `default` for none."""
    return max(statuses, key=SEVERITY.index, default=default)
