"""Reruns of a feed's replication into a target cluster (`--cluster` the target): its run records
(`<working>/replication/<feed>/<key>.json`, core/ledger/replication_runs.py) and the runs killed holding an
instance's lock. A rerun copies every file of the instance again (`replication.py --recopy`); with --continue it
keeps what a former run copied and verified and copies only what is missing or changed."""

from __future__ import annotations

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid
from toolkit.core.ledger.records import parse_record
from toolkit.core.ledger.replication_runs import ReplicationRecord
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.planners.replication import target_of
from toolkit.services.runtime.run_record import record_folder, record_path
from toolkit.statuses import Status
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window, killed_runs, record_times


def _rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
    target_of(repo, feed, cluster.name)  # a cluster that is not a target: one sentence
    rows = {}
    grid = feed_grid(feed, cluster.name)
    for t in record_times(ledger.fs, record_folder(cluster, "replication", feed.name), window, grid.contains):
        path = record_path(cluster, "replication", feed.name, t)
        record: ReplicationRecord = parse_record(ReplicationRecord, ledger.fs.read(path), path)
        why = "; ".join(f"{part.source}: {part.reason}" for part in record.sources if part.reason)
        rows[t] = RerunRow(t, Status(record.status) if record.status in Status.__members__ else Status.FAILED, why)
    for t, why in killed_runs(ledger, "replication", feed.name, window).items():
        rows[t] = RerunRow(t, Status.KILLED, why)
    return [rows[t] for t in sorted(rows)]


def _arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, row: RerunRow, resume: bool) -> list[str]:
    target_of(repo, feed, cluster.name)
    if not resume and feed.table_on(cluster.name) is not None:
        raise UsageError(f"Feed '{feed.name}' is a table on '{cluster.name}': its replication reruns with --continue "
                         "(a partition is copied again where it changed), not copied again whole.")
    # a window of the one instance: `--time` names the instance at or before it minus the target's delay, which a
    # delay in months or days across a change of the clocks does not give back for every instance
    stamp = format_timestamp(row.time)
    return ["--feed", feed.name, "--target", cluster.name, "--from", stamp, "--to", stamp,
            *([] if resume else ["--recopy"])]


RERUNS = ActionReruns("replication", "replication.py", "the target cluster", _rows, _arguments,
                      resumes="keep what a former run copied and verified; copy only what is missing or changed")
