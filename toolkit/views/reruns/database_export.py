"""Reruns of a feed's database export on a cluster (transfers.py). No --continue: an export loads its rows in one
transaction, which a killed run either committed (the next call records it done) or left undone."""

from __future__ import annotations

from toolkit.core.ledger.database_transfers import ExportBook
from toolkit.views.reruns.transfers import transfer_reruns

RERUNS = transfer_reruns("export", ExportBook, "export.py", "the cluster the feed's export is defined on",
                         why_not="an export loads its rows in one transaction, which a killed run either committed "
                                 "(the next call records it done) or left undone")
