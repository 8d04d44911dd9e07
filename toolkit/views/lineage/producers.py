"""One step upstream: the run that produced a feed instance as it is now, found from its newest publication event.

The event's `producer` says who: `process:<name>` (the attempt of that run is found in the process's instance
folder, whose time comes from inverting the output's instance expression; a batch consumer's batch by its run
id), `replication:<sources>` and `hive-import` (the same instance on the source clusters), anything else a
producer outside the toolkit's runs (`external` for `toolkit publish`, `ingest`, `compaction`).
"""

from __future__ import annotations

from datetime import datetime

from toolkit.core.entities.model import Process
from toolkit.core.instances.grids import feed_grid_for_processes, process_grid
from toolkit.core.instances.window_inverse import readers_of
from toolkit.core.ledger.batch_records import BatchLog, BatchRecord
from toolkit.core.ledger.records import EVICTED, DatasetEvent
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.statuses import Status
from toolkit.views.lineage.graph import CHANGED, GONE, UNCHANGED, RunNode
from toolkit.views.lineage.ledgers import Ledgers
from toolkit.views.lineage.steps import (
    HIVE_IMPORT,
    PROCESS,
    REPLICATION,
    Read,
    Step,
    Write,
    attempt_step,
    copy_step,
    outside_step,
)


def producing_step(ledgers: Ledgers, feed: str, cluster: str, t: datetime) -> Step | str:
    """The run of the instance's newest publication, or the sentence saying why none is known."""
    published = [event for event in ledgers.events(feed, cluster, t) if event.kind != EVICTED]
    if not published:
        return "no dataset event records who published it here"
    event = published[-1]
    if event.producer.startswith(PROCESS + ":"):
        return _process_step(ledgers, event, event.producer.split(":", 1)[1])
    if event.producer == HIVE_IMPORT or event.producer.startswith(REPLICATION + ":"):
        return copy_step(ledgers, event)
    return outside_step(ledgers, event)


def _process_step(ledgers: Ledgers, event: DatasetEvent, name: str) -> Step:
    ledger = ledgers.ledger(event.cluster)
    process = ledgers.repo.processes.get(name)
    assert isinstance(ledger, Ledger)  # its events were read
    if process is None:
        return _unfound(ledgers, event, name, f"process '{name}' is not in the repo")
    if process.is_batch_consumer:
        found = _batch_step(ledgers, ledger, event, name)
        return found or _unfound(ledgers, event, name, f"no batch of run {event.run_id} is in the ledger")
    try:
        times = _writing_instances(ledgers, process, event)
    except UsageError as err:
        return _unfound(ledgers, event, name, str(err))
    for time in times:
        attempts = [a for a in ledger.attempts(name, time) if a.run_id == event.run_id and a.status == Status.SUCCEEDED
                    and any(o.feed == event.feed and o.time == event.time for o in a.published())]
        if attempts:
            return attempt_step(ledgers, attempts[-1])
    return _unfound(ledgers, event, name, f"no succeeded attempt of run {event.run_id} is in the ledger")


def _writing_instances(ledgers: Ledgers, process: Process, event: DatasetEvent) -> list[datetime]:
    """The process instances whose output instance of the event's feed is the event's instance: the output
    expression inverted (a window from it to itself) on the cluster's grids."""
    feed = ledgers.repo.feed(event.feed)
    on_feed, on_process = feed_grid_for_processes(feed, event.cluster), process_grid(process, event.cluster)
    times: set[datetime] = set()
    for output in process.outputs:
        if output.feed == event.feed:
            expression = output.require_instance()
            times.update(readers_of(expression, expression, on_feed, on_process, event.nominal))
    return sorted(times)


def _batch_step(ledgers: Ledgers, ledger: Ledger, event: DatasetEvent, name: str) -> Step | None:
    """The batch a batch consumer's run published the instance from (its batches read newest first, until found):
    the instances it consumed by event id, `changed` when the instance has a newer event now."""
    folder = f"{ledger.layout.process_folder(name)}/batches"
    listed = ledger.fs.list(folder) if ledger.fs.exists(folder) else []
    log = BatchLog(ledger, name)
    for seq in sorted((int(s.name) for s in listed if s.is_dir and s.name.isdigit()), reverse=True):
        record = log.state(seq)
        if record is not None and record.run_id == event.run_id and _published(record, event):
            return _consumed(ledgers, record, event)
    return None


def _published(record: BatchRecord, event: DatasetEvent) -> bool:
    return record.status == Status.SUCCEEDED and any(
        o.feed == event.feed and o.time == event.time for o in record.published())


def _consumed(ledgers: Ledgers, record: BatchRecord, event: DatasetEvent) -> Step:
    run = RunNode(PROCESS, record.cluster, record.run_id, event.time, process=record.process, attempt=record.attempt,
                  attempt_kind=f"BATCH {record.seq}", status=record.status, started=record.started,
                  ended=record.ended)
    reads = []
    for item in record.inputs_read():
        if item.feed is None:
            continue
        for seen in item.instances:
            now = ledgers.instance(item.feed, record.cluster, seen.instance)
            since = GONE if now.state == EVICTED else UNCHANGED if now.event_id == seen.event_id else CHANGED
            reads.append(Read(now, item.name, None, since))
    writes = tuple(Write(ledgers.instance(o.feed, record.cluster, o.instance), o.name) for o in record.published())
    return Step(run, tuple(reads), writes)


def _unfound(ledgers: Ledgers, event: DatasetEvent, name: str, why: str) -> Step:
    """The producing run as its event names it, when its records cannot be found."""
    run = RunNode(PROCESS, event.cluster, event.run_id, event.time, process=name, feed=event.feed,
                  status=event.kind, ended=event.published, notes=(why,))
    return Step(run, (), (Write(ledgers.instance(event.feed, event.cluster, event.nominal), None),))
