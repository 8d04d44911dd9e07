"""What a batch consumer's batch means for its workflow, from the plan's dataset events alone (pure): which
instances each input lists and where each output instance lies.

- An input lists the instances of its feed that the batch's events published or replaced, each once, at its
  newest event of the batch, oldest instance first; an instance whose newest event in the batch is an eviction
  is not listed (the event counts as consumed all the same).
- An output's instance is the newest listed input instance's time snapped down onto the output feed's grid
  (its frequency, time zone and validity on the cluster), so it is an instance that retention, replication and
  further consumers understand.
- Whether a new batch is due (`due_feeds`): the trigger's `cut` (an EL instant at now, in the process's time
  zone) bounds the pending instances, and `condition` wants pending data of every input feed (`all`) or of
  one (`any`); the sweep decides with the same functions (they read no storage and start no JVM).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Condition, Process
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.records import EVICTED, DatasetEvent, record_time
from toolkit.errors import UsageError


@dataclass(frozen=True)
class BatchInput:
    """An input of the batch: its name, feed, and per instance the event that published it, oldest first."""

    name: str
    feed: str
    events: tuple[DatasetEvent, ...]

    @property
    def times(self) -> tuple[datetime, ...]:
        return tuple(record_time(event.time) for event in self.events)


def batch_inputs(process: Process, events: list[DatasetEvent]) -> list[BatchInput]:
    """Each input of the process with the instances the batch's `events` (in publication order) list for it."""
    newest: dict[tuple[str, str], DatasetEvent] = {}
    for event in sorted(events, key=lambda e: e.event_id):
        newest[(event.feed, event.time)] = event
    found = []
    for item in process.inputs:
        mine = sorted((e for (feed, _), e in newest.items() if feed == item.feed and e.kind != EVICTED),
                      key=lambda e: record_time(e.time))
        found.append(BatchInput(item.name, item.feed, tuple(mine)))
    return found


def newest_time(inputs: list[BatchInput]) -> datetime | None:
    """The newest instance the batch lists, None when it lists none (evictions only)."""
    return max((t for item in inputs for t in item.times), default=None)


def output_time(process: Process, output: str, feed: str, grid: InstanceGrid, newest: datetime) -> datetime:
    """`newest` snapped down onto the output feed's grid; UsageError when the feed has no instance there."""
    snapped = grid.at_or_before(newest)
    if snapped is None:
        raise UsageError(f"The output '{output}' of process '{process.name}' has no instance of feed '{feed}' at or "
                         f"before {format_timestamp(newest)}, the newest instance of the batch: the feed's validity "
                         "on this cluster starts later; make it start earlier.")
    return snapped


def trigger_cut(process: Process, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The trigger's `cut` evaluated at `now` in the process's time zone (None without one)."""
    text = process.trigger.cut
    if text is None:
        return None
    value = parse_expression(text).evaluate(ELContext(nominal=now, zone=zone))
    if not isinstance(value, datetime):
        raise UsageError(f"The trigger cut '{text}' of process '{process.name}' is not an instant: write one such "
                         "as now(-1,0).")
    return value


def due_feeds(process: Process, pending: Iterable[JournalEntry], cut: datetime | None) -> list[str]:
    """The input feeds a new batch waits for: [] when one is due (`condition: all`: every input feed has
    pending published instances up to `cut`; `any`: one has), else the feeds without (every feed when none has)."""
    feeds = sorted({item.feed for item in process.inputs})
    ready = {e.feed for e in pending if e.kind != EVICTED and (cut is None or e.time <= cut)}
    waiting = [feed for feed in feeds if feed not in ready]
    if not ready or (process.trigger.condition is Condition.ALL and waiting):
        return waiting
    return []
