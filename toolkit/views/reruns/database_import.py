"""Reruns of a feed's database import on a cluster (transfers.py). No --continue: a killed import that had published
is finished by the next call, one that had not reads its rows again."""

from __future__ import annotations

from toolkit.core.ledger.database_transfers import ImportBook
from toolkit.views.reruns.transfers import transfer_reruns

RERUNS = transfer_reruns("import", ImportBook, "import.py", "the cluster the feed's import is defined on",
                         why_not="a killed import that had published is finished by the next call; one that had not "
                                 "reads its rows again")
