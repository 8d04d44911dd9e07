"""Reruns of a feed's database import on a cluster (transfers.py). No --continue: a killed import that had published
is finished by the next call, one that had not reads its rows again."""

from __future__ import annotations

from datetime import datetime

from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.database_transfers import ImportBook
from toolkit.core.ledger.store import Ledger
from toolkit.views.reruns.rows import ActionReruns, RerunRow, Window
from toolkit.views.reruns.transfers import transfer_arguments, transfer_rows


def _rows(ledger: Ledger, repo: ConfigRepo, feed: Feed, cluster: Cluster, window: Window) -> list[RerunRow]:
    records = ImportBook(ledger.fs, ledger.layout, feed.name).instances
    return transfer_rows(ledger, records, "import", feed, cluster, window)


def _arguments(repo: ConfigRepo, feed: Feed, cluster: Cluster, t: datetime, resume: bool) -> list[str]:
    return transfer_arguments(feed, cluster, t)


RERUNS = ActionReruns("import", "import.py", "the cluster the feed's import is defined on", _rows, _arguments,
                      why_not="a killed import that had published is finished by the next call; one that had not "
                              "reads its rows again")
