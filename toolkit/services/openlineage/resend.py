"""`toolkit lineage resend`: the events a lineage backend missed (or all, when asked), sent again from the
ledger's records in the order the runs happened, each event marked sent in a file of its own (store.py) as soon as
the backend took it. One resend per cluster at a time (a lease in the ledger); the second caller is told who
holds it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.core.ledger.run_locks import holding
from toolkit.core.ledger.store import Ledger
from toolkit.services.openlineage.store import LineageBook
from toolkit.services.openlineage.transport import Emitter


@dataclass(frozen=True)
class Resent:
    """What a resend did; `due - sent` events stay for the next one."""

    runs: int  # records with something to send
    due: int  # events to send
    sent: int
    reason: str | None  # why sending stopped, when it did


def resend(ledger: Ledger, emitter: Emitter, run_id: str, first: datetime | None = None,
           last: datetime | None = None, everything: bool = False) -> Resent:
    book = LineageBook(ledger.fs, ledger.layout)
    runs = due = sent = 0
    with holding(ledger.lineage_resend_lock(), run_id, "lineage resend of this cluster") as lease:
        for _, record in book.records(first, last):
            todo = list(range(len(record.events))) if everything else record.unsent
            if not todo:
                continue
            runs, due = runs + 1, due + len(todo)
            for index in todo:
                if emitter.send(record.events[index].event):
                    lease.check()
                    book.mark_sent(record, index)  # at once: a resend killed now sends this one again, once
                    sent += 1
    return Resent(runs, due, sent, emitter.failure)
