"""Reruns of a table feed's Hive export or import on a cluster: their records (`hive-exports/<feed>/<key>.json`,
`hive-imports/<feed>/<key>.json`, core/ledger/hive_transfers.py), an instance whose lease a live run holds RUNNING, a
RUNNING record whose run holds none KILLED (an import's whose run wrote the partition's event: SUCCEEDED, its export
is consumed), and the entrypoint call with the directory (and an import's options) the run was given. No --continue: an
export is written whole again into its directory; an import finds what a killed run moved into the partition and
finishes it, whatever the call."""

from __future__ import annotations

from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid, require_on_cluster
from toolkit.core.ledger.hive_transfers import HiveAction, HiveTransferRecord, hive_records
from toolkit.core.ledger.locks import HELD, LeaseLock
from toolkit.core.ledger.records import CorruptRecordError
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.secrets_masking import masked
from toolkit.shown_text import printable
from toolkit.statuses import Status
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window, record_times


def _lock(ledger: Ledger, action: HiveAction, record: HiveTransferRecord) -> LeaseLock:
    """The lease the run held: the export's of the instance, the import's of the partition."""
    if action == "hive-export":
        return ledger.hive_export_lock(record.feed, record.nominal)
    database, _, table = record.table.partition(".")
    return ledger.import_lock(database, table, record.partition)


def _checked(record: HiveTransferRecord, path: str, feed: Feed, t: datetime) -> HiveTransferRecord:
    """The record, when it is one of this feed's instance at `t` whose values can be given to a command again;
    else CorruptRecordError naming it (a hand-edited file, not a run's)."""
    database, dot, table = record.table.partition(".")
    why = None
    if record.feed != feed.name or record.nominal != t:
        why = f"it is of feed '{record.feed}' at {record.time}, not of '{feed.name}' at its name's time"
    elif not (dot and database and table and "." not in table):
        why = f"its table {printable(record.table)!r} is not database.table"
    elif not record.partition:
        why = "its partition is empty"
    elif any(printable(value) != value for value in (record.directory, record.table, record.partition,
                                                     record.table_location or "")):
        why = "a value holds a control character"
    elif any(masked(value) != value for value in (record.directory, record.table_location or "")):
        why = "a directory writes a password into its URI"
    if why is not None:
        raise CorruptRecordError(path, why)
    return record


def _as_it_stands(ledger: Ledger, action: HiveAction, record: HiveTransferRecord, now: float) -> tuple[Status, str]:
    """The instance's status and why: RUNNING while a live run holds its lease (the record's, or one that took it
    over or runs it again and has not written yet); a RUNNING record whose run holds no live lease, KILLED; else as
    recorded."""
    lease = _lock(ledger, action, record).current()
    if lease is not None and lease.live(now):
        return Status.RUNNING, "" if lease.run_id == record.run_id else f"run {lease.run_id} runs it now"
    if record.status != Status.RUNNING:
        return record.status, record.error or ""
    if lease is not None and lease.state == HELD:
        return Status.KILLED, f"run {lease.run_id} on {lease.holder} died holding it (its lease ended " \
                              f"{lease.expires_text})"
    return Status.KILLED, f"run {record.run_id} ended without recording how (it was stopped)"


def _published_by(ledger: Ledger, record: HiveTransferRecord) -> bool:
    """Whether the record's run wrote the instance's dataset event: an import killed after it published (its export
    consumed) has nothing left to do."""
    return any(event.run_id == record.run_id for event in ledger.events(record.feed, record.nominal))


def _given(action: HiveAction, record: HiveTransferRecord) -> tuple[str, ...]:
    if action == "hive-export":
        return ("--to", record.directory)
    return ("--from", record.directory, *(("--keep-export",) if record.keep_export else ()),
            *(() if record.checksums else ("--no-checksums",)),
            *(("--table-location", record.table_location) if record.table_location else ()))


def hive_reruns(action: HiveAction, entrypoint: str, why_not: str) -> ActionReruns:
    def rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
        require_on_cluster(feed, cluster.name)
        if feed.table_on(cluster.name) is None:
            raise UsageError(f"Feed '{feed.name}' is not a catalog table on cluster '{cluster.name}': it has no "
                             f"{action} there; give a cluster where its location is a table.")
        records = hive_records(ledger.fs, ledger.layout, action, feed.name)
        found = []
        for t in record_times(ledger.fs, records.folder, window, feed_grid(feed, cluster.name).contains):
            read = records.read(t)
            if read is None:
                continue
            record = _checked(read, records.path(t), feed, t)
            status, why = _as_it_stands(ledger, action, record, window.now)
            if status == Status.KILLED and action == "hive-import" and _published_by(ledger, record):
                status, why = Status.SUCCEEDED, f"run {record.run_id} was killed after it published"
            found.append(RerunRow(t, status, why, _given(action, record)))
        return found

    def arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, row: RerunRow, resume: bool) -> list[str]:
        return ["--feed", feed.name, "--cluster", cluster.name, "--time", format_timestamp(row.time), *row.given]

    return ActionReruns(action, entrypoint, "the cluster whose catalog holds the table", rows, arguments,
                        why_not=why_not)


EXPORT_RERUNS = hive_reruns("hive-export", "hive_export.py", "an export is written whole again into its directory")
IMPORT_RERUNS = hive_reruns("hive-import", "hive_import.py",
                            "an import finishes what a killed run moved into the partition, whatever the call")
