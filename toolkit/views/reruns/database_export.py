"""Reruns of a feed's database export on a cluster (transfers.py). No --continue: an export loads its rows in one
transaction, which a killed run either committed (the next call records it done) or left undone."""

from __future__ import annotations

from datetime import datetime

from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.database_transfers import ExportBook
from toolkit.core.ledger.store import Ledger
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window
from toolkit.views.reruns.transfers import transfer_arguments, transfer_rows


def _rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
    records = ExportBook(ledger.fs, ledger.layout, feed.name).instances
    return transfer_rows(ledger, records, "export", feed, cluster, window)


def _arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, t: datetime, resume: bool) -> list[str]:
    return transfer_arguments(feed, cluster, t)


RERUNS = ActionReruns("export", "export.py", "the cluster the feed's export is defined on", _rows, _arguments,
                      why_not="an export loads its rows in one transaction, which a killed run either committed (the "
                              "next call records it done) or left undone")
