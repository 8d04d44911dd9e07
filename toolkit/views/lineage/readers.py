"""One step downstream: the runs that read a feed instance.

Processes: those of the repo on the cluster with an input of the feed; the instances whose window holds the
instance come from inverting the windows (`core/instances/window_inverse.py`, no walk of the process grid), and each
one's records say whether it ran and what it read: its newest succeeded attempt that lists the instance (a late
rerun reads it again), else its newest attempt that does, else its instance record (waiting, failed). Instances
without a record are named in a note. Replication: the feed's target clusters, where the instance's newest copy
(a replication from this cluster, or a Hive import) is read from that cluster's ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import FeedClusterType, Process
from toolkit.core.instances.window_inverse import instances_reading
from toolkit.core.ledger.records import AttemptRecord
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.statuses import Status
from toolkit.views.lineage.ledgers import Ledgers
from toolkit.views.lineage.steps import Step, attempt_step, copied_from, copy_step, record_step

_NAMED = 5  # instances without a record named in a note; more are counted


@dataclass(frozen=True)
class Readers:
    steps: tuple[Step, ...]
    notes: tuple[str, ...]


def reading_steps(ledgers: Ledgers, feed: str, cluster: str, t: datetime) -> Readers:
    """The process runs and copies that read the instance `t` of `feed` on `cluster`, and what was not traced."""
    steps: list[Step] = []
    notes: list[str] = []
    ledger = ledgers.ledger(cluster)
    if isinstance(ledger, Ledger):
        for _, process in sorted(ledgers.repo.processes.items()):
            if process.cluster(cluster) is not None and any(item.feed == feed for item in process.inputs):
                found = _process_readers(ledgers, ledger, process, feed, cluster, t)
                steps.extend(found.steps)
                notes.extend(found.notes)
    _copies(ledgers, feed, cluster, t, steps, notes)
    return Readers(tuple(steps), tuple(notes))


def _process_readers(ledgers: Ledgers, ledger: Ledger, process: Process, feed: str, cluster: str,
                     t: datetime) -> Readers:
    """The runs of `process` that read the instance `t` of `feed`, and what of its reading was not traced."""
    if process.is_batch_consumer:
        return Readers((), (f"batch consumer '{process.name}' reads it by batches, not traced here: `toolkit queue` "
                            "shows which batch holds it",))
    steps: list[Step] = []
    notes: list[str] = []
    times: set[datetime] = set()
    for item in process.inputs:
        if item.feed == feed:
            try:
                times.update(instances_reading(ledgers.repo, process, cluster, item.name, t))
            except UsageError as err:
                notes.append(str(err))
    unrun = []
    for time in sorted(times):
        record = ledger.instance(process.name, time)
        if record is None:
            unrun.append(format_timestamp(time))
            continue
        attempt = _reading_attempt(ledger.attempts(process.name, time), feed, format_timestamp(t))
        steps.append(attempt_step(ledgers, attempt) if attempt is not None else record_step(
            record, f"no attempt lists {feed} {format_timestamp(t)} as read"))
    if unrun:
        named = ", ".join(unrun[:_NAMED]) + (f" and {len(unrun) - _NAMED} more" if len(unrun) > _NAMED else "")
        notes.append(f"process '{process.name}' reads it at {named}, not run yet (no record)")
    return Readers(tuple(steps), tuple(notes))


def _reading_attempt(attempts: list[AttemptRecord], feed: str, stamp: str) -> AttemptRecord | None:
    reading = [a for a in attempts if any(item.feed == feed and any(i.time == stamp for i in item.instances)
                                          for item in a.inputs_read())]
    succeeded = [a for a in reading if a.status == Status.SUCCEEDED]
    chosen = succeeded or reading
    return chosen[-1] if chosen else None


def _copies(ledgers: Ledgers, feed: str, cluster: str, t: datetime, steps: list[Step], notes: list[str]) -> None:
    entity = ledgers.repo.feeds.get(feed)
    here = entity.cluster(cluster) if entity is not None else None
    if entity is None or here is None or here.type == FeedClusterType.TARGET:
        return
    for target in entity.clusters:
        if target.type != FeedClusterType.TARGET or target.name == cluster:
            continue
        ledger = ledgers.ledger(target.name)
        if isinstance(ledger, str):
            notes.append(f"its copy on '{target.name}' is not traced: {ledger}")
            continue
        copies = [event for event in ledgers.events(feed, target.name, t) if copied_from(event, cluster)]
        if copies:
            steps.append(copy_step(ledgers, copies[-1]))
        else:
            notes.append(f"not copied to '{target.name}' (no replication or import event there)")
