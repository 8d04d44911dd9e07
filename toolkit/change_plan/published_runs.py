"""The instances of a process its cluster's ledger records as succeeded, with what they published: what a change to
the process's validity or its computation leaves behind (validity_changes.py, process_changes.py)."""

from __future__ import annotations

from toolkit.change_plan.changes import PlannedInstance
from toolkit.change_plan.feed_storage import FeedStorage
from toolkit.entities.model import Cluster
from toolkit.ledger.store import Ledger
from toolkit.statuses import Status


def succeeded(storage: FeedStorage, cluster: Cluster, process: str) -> tuple[PlannedInstance, ...] | None:
    """The succeeded instances of `process` on `cluster`, oldest first, each with the paths and bytes of its
    outputs; None when the ledger is not read without a JVM."""
    fs = storage.ledger_system(cluster)
    if fs is None:
        return None
    ledger = Ledger.of(fs, cluster)
    records = ledger.instances(process, sorted(ledger.recorded_times(process)))
    found = []
    for t, record in sorted(records.items()):
        if record.status is Status.SUCCEEDED:
            outputs = record.published()
            found.append(PlannedInstance(t, ", ".join(output.path for output in outputs),
                                         sum(output.bytes for output in outputs)))
    return tuple(found)
