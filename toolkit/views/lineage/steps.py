"""One run as the ledgers record it: what it read (with the fingerprint as read and what that instance is now) and
what it wrote. The same step serves both directions: the producer of an instance upstream, a reader downstream."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.entities.model import FeedClusterType
from toolkit.core.entities.provenance import Provenance
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import EVICTED, AttemptRecord, DatasetEvent, InstanceRecord, parse_json
from toolkit.core.ledger.store import Ledger
from toolkit.services.runtime.run_record import record_path
from toolkit.views.lineage.graph import CHANGED, GONE, UNCHANGED, UNKNOWN, InstanceNode, RunNode
from toolkit.views.lineage.ledgers import Ledgers, since_read

REPLICATION, HIVE_IMPORT, PROCESS = "replication", "hive-import", "process"


@dataclass(frozen=True)
class Read:
    """An input instance as it is now, the run's name for it, the fingerprint the run recorded, and the verdict."""

    instance: InstanceNode
    name: str | None
    fingerprint: Fingerprint | None
    since_read: str


@dataclass(frozen=True)
class Write:
    """An instance the run published, under the run's name for it (None: an outside producer or a copy)."""

    instance: InstanceNode
    name: str | None


@dataclass(frozen=True)
class Step:
    """One run with what it read and wrote: the unit the walk adds to the graph."""

    run: RunNode
    reads: tuple[Read, ...]
    writes: tuple[Write, ...]


def attempt_step(ledgers: Ledgers, attempt: AttemptRecord) -> Step:
    """A process attempt: its input instances with the fingerprints it recorded, and its published outputs."""
    run = RunNode(PROCESS, attempt.cluster, attempt.run_id, attempt.time, process=attempt.process,
                  attempt=attempt.attempt, attempt_kind=attempt.kind, status=attempt.status, started=attempt.started,
                  ended=attempt.ended, commit=_commit(attempt.definition))
    reads = []
    for item in attempt.inputs_read():
        if item.feed is None:
            continue  # a record of format 1 names no feed: its reads cannot be placed
        for seen in item.instances:
            now = ledgers.instance(item.feed, attempt.cluster, seen.instance)
            read = seen.fingerprint if seen.available else None
            reads.append(Read(now, item.name, read, since_read(read, now)))
    writes = tuple(Write(ledgers.instance(output.feed, attempt.cluster, output.instance), output.name)
                   for output in attempt.published())
    return Step(run, tuple(reads), writes)


def record_step(record: InstanceRecord, note: str) -> Step:
    """A process instance known only from its instance record (waiting, failed, or no attempt found): no reads."""
    run = RunNode(PROCESS, record.cluster, record.run_id, record.time, process=record.process, status=record.status,
                  started=record.started, ended=record.ended, notes=(note,))
    return Step(run, (), ())


def outside_step(ledgers: Ledgers, event: DatasetEvent) -> Step:
    """A producer outside the toolkit's runs (`external`, `ingest`, `compaction`): the instance it published."""
    run = RunNode(event.producer, event.cluster, event.run_id, event.time, feed=event.feed, status=event.kind,
                  ended=event.published, commit=_commit(event.definition))
    return Step(run, (), (Write(ledgers.instance(event.feed, event.cluster, event.nominal), None),))


def copy_step(ledgers: Ledgers, event: DatasetEvent) -> Step:
    """A replication (`replication:<sources>`) or a Hive import into the event's cluster: the same instance on the
    sources it names (an import names none: the feed's source clusters in the repo) and the copy it made."""
    sources, notes = _sources(ledgers, event)
    status, record_note = _replication_status(ledgers, event)
    kind = HIVE_IMPORT if event.producer == HIVE_IMPORT else REPLICATION
    run = RunNode(kind, event.cluster, event.run_id, event.time, feed=event.feed, status=status or event.kind,
                  ended=event.published, notes=tuple(notes) + ((record_note,) if record_note else ()),
                  commit=_commit(event.definition))
    reads = []
    for source in sources:
        now = ledgers.instance(event.feed, source, event.nominal)
        reads.append(Read(now, source, None, _copied_since(event, now)))
    return Step(run, tuple(reads), (Write(ledgers.instance(event.feed, event.cluster, event.nominal), None),))


def _copied_since(copy: DatasetEvent, source: InstanceNode) -> str:
    """The source instance against the copy: republished after the copy's event is `changed` (the copy may be
    stale), evicted is `evicted`. Fingerprints of two clusters are not compared: modification times differ."""
    if source.state == EVICTED:
        return GONE
    if source.event_id is None:
        return UNKNOWN
    return CHANGED if source.event_id > copy.event_id else UNCHANGED


def copied_from(event: DatasetEvent, cluster: str) -> bool:
    """Whether the event is a copy into its cluster from `cluster` (a replication naming it, or an import)."""
    if event.kind == EVICTED:
        return False
    if event.producer == HIVE_IMPORT:
        return True
    return event.producer.startswith(REPLICATION + ":") and cluster in event.producer.split(":", 1)[1].split(",")


def _sources(ledgers: Ledgers, event: DatasetEvent) -> tuple[list[str], list[str]]:
    feed = ledgers.repo.feeds.get(event.feed)
    if event.producer == HIVE_IMPORT:
        named = [c.name for c in feed.clusters if c.type == FeedClusterType.SOURCE] if feed else []
        return [name for name in named if name != event.cluster], [
            "an import records no source: the feed's source clusters in the repo are shown"]
    named = [name for name in event.producer.split(":", 1)[1].split(",") if name]
    notes = [f"source cluster '{name}' is not in the repo" for name in named if name not in ledgers.repo.clusters]
    return [name for name in named if name in ledgers.repo.clusters], notes


def _replication_status(ledgers: Ledgers, event: DatasetEvent) -> tuple[str | None, str | None]:
    """The status in the replication's run record on the target (`<working>/replication/<feed>/<time>.json`), when
    that record is of the event's run; else a note saying why there is none."""
    ledger = ledgers.ledger(event.cluster)
    if event.producer == HIVE_IMPORT or not isinstance(ledger, Ledger):
        return None, None
    path = record_path(ledgers.repo.cluster(event.cluster), REPLICATION, event.feed, event.nominal)
    data = ledger.fs.read_if_exists(path)
    if data is None:
        return None, f"no replication record at {path}"
    record = parse_json(data, path)
    if not isinstance(record, dict) or record.get("run_id") != event.run_id:
        return None, f"the replication record {path} is of another run"
    return str(record.get("status")), None


def _commit(definition: Provenance | None) -> str | None:
    """The commit a record says its run ran, as people read it; None when it says nothing."""
    return definition.label if definition is not None else None
