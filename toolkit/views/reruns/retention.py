"""Reruns of a feed's retention on a cluster: its run records (`<working>/retention/<feed>/<key>.json`, written when a
run finished: SUCCEEDED) and a run killed holding the feed's retention lock (its lease names the nominal time). A
rerun evaluates the feed's eviction at that nominal time again (`retention.py --feed F --time T`): what has expired
since is evicted. It has no --continue: every call finishes the evictions a killed run had planned before anything
else (core/ledger/evictions.py)."""

from __future__ import annotations

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.store import Ledger
from toolkit.services.runtime.run_record import record_folder
from toolkit.statuses import Status
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window, killed_runs, record_times


def _rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
    require_on_cluster(feed, cluster.name)
    rows = {t: RerunRow(t, Status.SUCCEEDED)
            for t in record_times(ledger.fs, record_folder(cluster, "retention", feed.name), window)}
    for t, why in killed_runs(ledger, "retention", feed.name, window).items():
        rows[t] = RerunRow(t, Status.KILLED, why)
    return [rows[t] for t in sorted(rows)]


def _arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, row: RerunRow, resume: bool) -> list[str]:
    return ["--feed", feed.name, "--cluster", cluster.name, "--time", format_timestamp(row.time)]


RERUNS = ActionReruns("retention", "retention.py", "the cluster whose retention limit applies", _rows, _arguments,
                      why_not="every retention call first finishes the evictions a killed run had planned")
