"""The readings of the actions on a cluster: each feed's newest retention and replication run (their run records,
toolkit/services/runtime/run_record.py), its ingest over the window (the ingest book's batches), the OpenLineage events
the ledger keeps unsent, and the notifications that failed. Only records are read: nothing is run or repaired."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import parse_instance_key
from toolkit.core.entities.model import Cluster, Feed, Process
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import CorruptRecordError, parse_record, stamp_seconds
from toolkit.core.ledger.replication_runs import ReplicationRecord
from toolkit.core.ledger.retention_runs import RetentionRecord
from toolkit.core.storage.filesystem import FileStatus, FileSystem
from toolkit.services.notifications.outcomes import FAILED
from toolkit.services.openlineage.store import LineageBook
from toolkit.services.runtime.run_record import record_folder
from toolkit.views.metrics.readings import ActionReading, Labels, Window

RETENTION, REPLICATION, INGEST = "retention", "replication", "ingest"


@dataclass(frozen=True)
class RunFigures:
    """What an action's run record says it moved: bytes and files (retention: freed and instances evicted)."""

    bytes: int
    files: int


def _figures(fs: FileSystem, action: str, path: str) -> RunFigures:
    """What the run record at `path` says the run moved; a damaged record is named (CorruptRecordError), as every
    other damaged record of the ledger is, rather than counted as nothing."""
    if action == RETENTION:
        retained: RetentionRecord = parse_record(RetentionRecord, fs.read(path), path)
        return RunFigures(_count(retained.bytes_freed, "bytes_freed", path),
                          _count(retained.instances_evicted, "instances_evicted", path))
    replicated: ReplicationRecord = parse_record(ReplicationRecord, fs.read(path), path)
    return RunFigures(sum(_count(part.bytes_copied, "bytes_copied", path) for part in replicated.sources),
                      sum(_count(part.files_copied, "files_copied", path) for part in replicated.sources))


def _count(value: int, field: str, path: str) -> int:
    """A count of a run record, which the record's codec checked to be an integer: not below zero either."""
    if value < 0:
        raise CorruptRecordError(path, f"the field '{field}' is {value!r}, not a count")
    return value


def _document(fs: FileSystem, path: str) -> Mapping[str, object]:
    """A JSON object the toolkit wrote (a notification record); a damaged one is named, as every other damaged
    record of the ledger is, rather than counted as nothing."""
    try:
        document = json.loads(fs.read(path))
    except ValueError as err:
        raise CorruptRecordError(path, f"not valid JSON: {err}") from None
    if not isinstance(document, dict):
        raise CorruptRecordError(path, "not a JSON object")
    return document


def _newest_record(fs: FileSystem, folder: str) -> FileStatus | None:
    if not fs.exists(folder):
        return None
    records = [status for status in fs.list(folder)
               if not status.is_dir and parse_instance_key(status.name.removesuffix(".json")) is not None]
    return max(records, key=lambda status: status.name, default=None)


def run_reading(fs: FileSystem, cluster: Cluster, action: str, labels: Labels) -> ActionReading | None:
    """The newest run of `action` on a feed (by its instance time), when it left a readable record."""
    newest = _newest_record(fs, record_folder(cluster, action, labels.name))
    if newest is None:
        return None
    figures = _figures(fs, action, newest.path)
    return ActionReading(action, labels, newest.modification_time / 1000, figures.bytes, figures.files, 0, 0)


def ingest_reading(fs: FileSystem, cluster: Cluster, labels: Labels, window: Window) -> ActionReading | None:
    """A streamed feed's committed batches written in the window: bytes read from landing, files written, records
    written and rejected; its last run is when its newest batch was written (None: no batch in the window)."""
    layout = LedgerLayout.of(cluster)
    folder = f"{layout.ingest_folder(labels.name)}/batches"
    if not fs.exists(folder):
        return None
    from toolkit.core.ledger.ingest_book import COMMITTED, IngestBook  # noqa: PLC0415 - a streamed feed's alone: 10 ms to load

    book = IngestBook(fs, layout, labels.name, cluster.name)
    stream = book.stream()
    if stream is None:
        return None
    read = written = records = rejected = 0
    last: float | None = None
    for status in fs.list(folder):
        epoch, _, number = status.name.removesuffix(".json").partition("-")
        if epoch != stream.epoch or not number.isdigit():
            continue
        batch = book.batch(epoch, int(number))
        when = stamp_seconds(batch.written) if batch is not None else None
        if batch is None or batch.state != COMMITTED or when is None or \
                not window.first.timestamp() < when <= window.now.timestamp():
            continue
        read += sum(source.end - source.start for source in batch.sources)
        written += len(batch.files)
        records += batch.rows
        rejected += batch.rejected
        last = when if last is None else max(last, when)
    return None if last is None else ActionReading(INGEST, labels, last, read, written, records, rejected)


def lineage_unsent(fs: FileSystem, cluster: Cluster, window: Window) -> int:
    """OpenLineage events of the window's runs that the backend has not taken (`toolkit lineage resend` sends them)."""
    book = LineageBook(fs, LedgerLayout.of(cluster))
    if not fs.exists(LedgerLayout.of(cluster).lineage_folder()):
        return 0
    return sum(len(record.unsent) for _, record in book.records(window.first, window.now))


def failed_notifications(fs: FileSystem, cluster: Cluster, entity: Feed | Process, window: Window) -> int:
    """Notices about the entity's instances of the window whose record says they could not be sent."""
    folder = LedgerLayout.of(cluster).notifications_folder(entity.kind.value, entity.name)
    if not fs.exists(folder):
        return 0
    instances = [status.path for status in fs.list(folder)
                 if status.is_dir and _in_window(parse_instance_key(status.name), window)]
    return sum(1 for record in _notification_records(fs, instances) if record.get("outcome") == FAILED)


def _in_window(t: datetime | None, window: Window) -> bool:
    return t is not None and window.holds(t)


def _notification_records(fs: FileSystem, folders: list[str]) -> Iterator[Mapping[str, object]]:
    for listed in fs.list_many(folders).values():
        for status in listed:
            if not status.is_dir and not status.is_link and status.name.endswith(".json"):
                yield _document(fs, status.path)
