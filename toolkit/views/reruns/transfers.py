"""What the reruns of a feed's database import and export share: their records in the cluster's ledger
(`imports/<feed>/<key>.json`, `exports/<feed>/<key>.json`, core/ledger/database_transfers.py) with the status and
error each run wrote, a RUNNING one whose run died read as KILLED; the entrypoint call with `--force`, which an
instance done already needs (a failed one runs without it alike)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid, require_on_cluster
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import InstanceRecords
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import UsageError
from toolkit.statuses import Status
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window, killed_runs, record_times


class TransferBook(Protocol):
    """An import's or an export's records of a feed (core/ledger/database_transfers.py)."""

    @property
    def instances(self) -> InstanceRecords: ...


def transfer_rows(ledger: Ledger, records: InstanceRecords, action: str, feed: Feed, cluster: Cluster,
                  window: Window) -> list[RerunRow]:
    """`action`: import or export, which the feed must have on the cluster."""
    on = require_on_cluster(feed, cluster.name)
    if (on.import_ if action == "import" else on.export) is None:
        raise UsageError(f"Feed '{feed.name}' has no {action} on cluster '{cluster.name}': rerun its {action} on a "
                         "cluster whose clusters[] entry has one.")
    lock_action = "db-import" if action == "import" else "db-export"
    rows = {}
    for t in record_times(ledger.fs, records.folder, window, feed_grid(feed, cluster.name).contains):
        record = records.read(t)
        if record is not None:
            rows[t] = RerunRow(t, Status(record.status), record.error or "")
    for t, why in killed_runs(ledger, lock_action, feed.name, window).items():
        if t not in rows or rows[t].status == Status.RUNNING:
            rows[t] = RerunRow(t, Status.KILLED, why)
    return [rows[t] for t in sorted(rows)]


def transfer_arguments(feed: Feed, cluster: Cluster, t: datetime) -> list[str]:
    return ["--feed", feed.name, "--cluster", cluster.name, "--time", format_timestamp(t), "--force"]


def transfer_reruns(action: str, book: Callable[[FileSystem, LedgerLayout, str], TransferBook], entrypoint: str,
                    cluster_is: str, why_not: str) -> ActionReruns:
    """The reruns of a feed's database `action` (import or export), whose records `book` keeps."""
    def rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
        return transfer_rows(ledger, book(ledger.fs, ledger.layout, feed.name).instances, action, feed, cluster,
                             window)

    def arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, row: RerunRow, resume: bool) -> list[str]:
        return transfer_arguments(feed, cluster, row.time)

    return ActionReruns(action, entrypoint, cluster_is, rows, arguments, why_not=why_not)
