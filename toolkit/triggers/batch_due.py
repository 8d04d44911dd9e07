"""Whether a batch consumer (a data-triggered process without frequency) has a batch to run, and how many runs
to start: one per open plan that no live run holds (a failed or killed run's batch, replayed exactly), plus one
for the pending events when they meet the trigger's condition (`all`: every input feed has some; `any`: one
has). At most the process's `parallel` runs hold batches at once; `ordered` runs one batch at a time."""

from __future__ import annotations

import time
from dataclasses import dataclass

from toolkit.entities.model import Condition, Process
from toolkit.ledger.consumption import ConsumerQueue
from toolkit.ledger.records import EVICTED
from toolkit.ledger.store import Ledger


@dataclass(frozen=True)
class BatchDue:
    runs: int  # batch runs to start now
    reason: str  # why that many (for the sweep's report)


def consumer_queue(ledger: Ledger, process: Process) -> ConsumerQueue:
    return ConsumerQueue(ledger, process.name, {item.feed for item in process.inputs})


def batch_due(ledger: Ledger, process: Process) -> BatchDue:
    queue = consumer_queue(ledger, process)
    now = time.time()
    open_plans = queue.open_plans()
    held = [plan for plan in open_plans if (lease := queue.lease(plan.seq)) is not None and lease.live(now)]
    replays = len(open_plans) - len(held)
    pending = queue.pending()
    feeds_with_data = {entry.feed for entry in pending if entry.kind != EVICTED}
    wanted = {item.feed for item in process.inputs}
    met = feeds_with_data == wanted if process.trigger.condition is Condition.ALL else bool(feeds_with_data)
    room = process.parallel - len(held)
    if process.trigger.ordered:
        room = min(room, 0 if held else 1)
    runs = max(0, min(room, replays + (1 if met and not (process.trigger.ordered and open_plans) else 0)))
    if runs:
        return BatchDue(runs, f"{replays} batch(es) to replay, {len(pending)} event(s) pending")
    if held:
        return BatchDue(0, f"{len(held)} batch(es) running")
    if pending:
        missing = sorted(wanted - feeds_with_data)
        return BatchDue(0, f"{len(pending)} event(s) pending, waiting for {', '.join(missing)} (condition all)")
    return BatchDue(0, "nothing pending")
