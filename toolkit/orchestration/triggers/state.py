"""What a sweep remembers between calls, in the cluster's ledger (`triggers/sweep.json`), per data-triggered
process with a frequency (batch consumers keep theirs in their queue, core/ledger/consumption.py):

- `position`: the newest journal entry it has read for the process; the next sweep lists the journal from there
  (minus the lag in which a slower producer's entry can still appear with an older id), and `seen` holds the
  entries of that window already handled, so that none is handled twice;
- `due`: the instances some event made due and that have not succeeded since that event (by the newest event's
  publication instant), with when the sweep last started each.

Per process, so that a process added later, a process suspended for a while and the processes of another config
repo sweeping the same cluster each read every event once. It only ever makes sweeps cheaper and starts fewer
duplicate runs: losing it (or a sweep killed before writing it) makes the next sweep read the whole journal again,
and what ran already is found in the ledger's instance records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from toolkit.core.ledger.records import EventId, InstanceKeyTime


@dataclass(frozen=True)
class DueInstance:
    """An instance made due by events, the newest published at `event_ms`; `started_ms` when a sweep started it."""

    KEEPS_NULLS = True  # `started_ms` is written null, as it always was

    time: InstanceKeyTime  # `20261121T1000Z` in the file
    event_ms: int
    started_ms: int | None = None


@dataclass(frozen=True)
class ProcessState:
    """`position`: an event id (or its floor), checked when read: the sweep reads the journal from its stamp, so a
    damaged position is a damaged record (refused with its path), not a traceback later. `due`: sorted by time
    (`due_in_order`), as the file lists them."""

    KEEPS_NULLS = True  # a process with no position yet has `"position": null`

    position: EventId | None = None
    seen: frozenset[str] = frozenset()
    due: tuple[DueInstance, ...] = ()

    def due_by_time(self) -> dict[datetime, DueInstance]:
        """The due instances by their time (a time listed twice: the last)."""
        return {item.time: item for item in self.due}


def due_in_order(due: Mapping[datetime, DueInstance]) -> tuple[DueInstance, ...]:
    """The due instances sorted by time, as a `ProcessState` keeps them."""
    return tuple(due[t] for t in sorted(due))


@dataclass(frozen=True)
class SweepState:
    """`triggers/sweep.json`, read and written with `RecordFile` (toolkit/core/ledger/record_files.py)."""

    FORMAT = 1
    RECORD_NAME = "sweep state"

    processes: dict[str, ProcessState] = field(default_factory=dict)

    def of(self, process: str) -> ProcessState:
        return self.processes.get(process, ProcessState())
