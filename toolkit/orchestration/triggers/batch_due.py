"""Whether a batch consumer (a data-triggered process without frequency) has a batch to run, and how many runs
to start: one per open plan that no live run holds (a failed or killed run's batch, replayed exactly), plus one
for the pending events when they meet the trigger's condition (`all`: every input feed has some; `any`: one
has, up to the trigger's `cut`: core/ledger/batch_plan.py, as the run decides). At most the process's `parallel`
runs hold batches at once; `ordered` runs one batch at a time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Process
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.batch_plan import due_feeds, trigger_cut
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.store import Ledger


@dataclass(frozen=True)
class BatchDue:
    runs: int  # batch runs to start now
    reason: str  # why that many (for the sweep's report)


def consumer_queue(ledger: Ledger, process: Process) -> ConsumerQueue:
    return ConsumerQueue(ledger, process.name, {item.feed for item in process.inputs})


def batch_due(ledger: Ledger, process: Process, cluster: str, now: datetime) -> BatchDue:
    validity = require_on_cluster(process, cluster).validity
    if not validity.start <= now < validity.end:  # its run would exit 4
        return BatchDue(0, f"outside its validity on cluster '{cluster}' ({format_timestamp(validity.start)} to "
                           f"{format_timestamp(validity.end)})")
    queue = consumer_queue(ledger, process)
    open_plans = queue.open_plans()
    held = [plan for plan in open_plans if (lease := queue.lease(plan.seq)) is not None and lease.live(ledger.clock())]
    replays = len(open_plans) - len(held)
    pending = queue.pending()
    waiting = due_feeds(process, pending, trigger_cut(process, now, resolve_zone(process.timezone)))
    room = process.parallel - len(held)
    if process.trigger.ordered:
        room = min(room, 0 if held else 1)
    new_batch = not waiting and not (process.trigger.ordered and open_plans)
    runs = max(0, min(room, replays + (1 if new_batch else 0)))
    if runs:
        return BatchDue(runs, f"{replays} batch(es) to replay, {len(pending)} event(s) pending")
    if held:
        return BatchDue(0, f"{len(held)} batch(es) running")
    if pending:
        return BatchDue(0, f"{len(pending)} event(s) pending, waiting for {', '.join(waiting)} "
                           f"(condition {process.trigger.condition.value})")
    return BatchDue(0, "nothing pending")
