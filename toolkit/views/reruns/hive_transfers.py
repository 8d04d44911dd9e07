"""Reruns of a table feed's Hive export or import on a cluster: their records (`hive-exports/<feed>/<key>.json`,
`hive-imports/<feed>/<key>.json`, core/ledger/hive_transfers.py), a RUNNING one whose run holds no live lease read as
KILLED, and the entrypoint call with the directory (and an import's options) the run was given. No --continue: an
export is written whole again into its directory; an import finds what a killed run moved into the partition and
finishes it, whatever the call."""

from __future__ import annotations

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid, require_on_cluster
from toolkit.core.ledger.hive_transfers import HiveAction, HiveTransferRecord, hive_records
from toolkit.core.ledger.locks import HELD, LeaseLock
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.statuses import Status
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window, record_times


def _lock(ledger: Ledger, action: HiveAction, record: HiveTransferRecord) -> LeaseLock:
    """The lease the run held: the export's of the instance, the import's of the partition."""
    if action == "hive-export":
        return ledger.hive_export_lock(record.feed, record.nominal)
    database, _, table = record.table.partition(".")
    return ledger.import_lock(database, table, record.partition)


def _ended_unrecorded(ledger: Ledger, action: HiveAction, record: HiveTransferRecord, now: float) -> str | None:
    """Why a RUNNING record's run is over (None: its run is alive)."""
    lease = _lock(ledger, action, record).current()
    if lease is not None and lease.live(now) and lease.run_id == record.run_id:
        return None
    if lease is not None and lease.state == HELD and lease.run_id == record.run_id:
        return f"run {record.run_id} on {lease.holder} died holding it (its lease ended {lease.expires_text})"
    return f"run {record.run_id} ended without recording how (it was stopped)"


def _given(action: HiveAction, record: HiveTransferRecord) -> tuple[str, ...]:
    if action == "hive-export":
        return ("--to", record.directory)
    return ("--from", record.directory, *(("--keep-export",) if record.keep_export else ()),
            *(() if record.checksums else ("--no-checksums",)),
            *(("--table-location", record.table_location) if record.table_location else ()))


def hive_reruns(action: HiveAction, entrypoint: str) -> ActionReruns:
    def rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
        require_on_cluster(feed, cluster.name)
        if feed.table_on(cluster.name) is None:
            raise UsageError(f"Feed '{feed.name}' is not a catalog table on cluster '{cluster.name}': it has no "
                             f"{action} there; give a cluster where its location is a table.")
        records = hive_records(ledger.fs, ledger.layout, action, feed.name)
        found = []
        for t in record_times(ledger.fs, records.folder, window, feed_grid(feed, cluster.name).contains):
            record = records.read(t)
            if record is None:
                continue
            status, why = record.status, record.error or ""
            if status == Status.RUNNING and (ended := _ended_unrecorded(ledger, action, record, window.now)):
                status, why = Status.KILLED, ended
            found.append(RerunRow(t, status, why, _given(action, record)))
        return found

    def arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, row: RerunRow, resume: bool) -> list[str]:
        return ["--feed", feed.name, "--cluster", cluster.name, "--time", format_timestamp(row.time), *row.given]

    return ActionReruns(action, entrypoint, "the cluster whose catalog holds the table", rows, arguments,
                        why_not="an export is written whole again; an import finishes what a killed run moved, "
                                "whatever the call")


EXPORT_RERUNS = hive_reruns("hive-export", "hive_export.py")
IMPORT_RERUNS = hive_reruns("hive-import", "hive_import.py")
