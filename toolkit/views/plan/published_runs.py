"""The instances of a process its cluster's ledger records as succeeded, with what they published and the definition
that computed them (core/entities/provenance.py, unknown for records of older toolkits): what a change to the process's
validity or its computation leaves behind (validity_changes.py, process_changes.py)."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.entities.model import Cluster
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.store import Ledger
from toolkit.statuses import Status
from toolkit.views.plan.changes import PlannedInstance
from toolkit.views.plan.feed_storage import FeedStorage


@dataclass(frozen=True)
class PublishedRun:
    """A succeeded instance: its time, outputs' paths and bytes, and the definition that computed it (None:
    not recorded)."""

    instance: PlannedInstance
    definition: Provenance | None


def succeeded(storage: FeedStorage, cluster: Cluster, process: str) -> tuple[PublishedRun, ...] | None:
    """The succeeded instances of `process` on `cluster`, oldest first; None when the ledger is not read without a
    JVM."""
    fs = storage.ledger_system(cluster)
    if fs is None:
        return None
    ledger = Ledger.of(fs, cluster)
    records = ledger.instances(process, sorted(ledger.recorded_times(process)))
    found = []
    for t, record in sorted(records.items()):
        if record.status is Status.SUCCEEDED:
            outputs = record.published()
            found.append(PublishedRun(PlannedInstance(t, ", ".join(output.path for output in outputs),
                                                      sum(output.bytes for output in outputs)),
                                      record.definition))
    return tuple(found)
