"""Which instances of a data-triggered process with a frequency to start now.

An event (feed, t) makes due the instances whose window holds t (`core/instances/window_inverse.py`: closed form, no
walk of the grid). A due instance is started when every instance of its required inputs' windows is published on
the cluster (its last event there is a publication, not an eviction), it is not running, and it has not started
since the newest event that made it due: an instance published again is a new event, and the instance that read
it runs again (once it had succeeded: only if that success started before the event, which the run itself checks,
so that a second start for one event does nothing). It stays due until it succeeds after that event and its
outputs' events are written, so a run that fails, or one killed before writing them, is started again by a later
sweep.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from toolkit.core.entities.model import Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import feed_grid_for_processes, process_grid
from toolkit.core.instances.inputs import describe_input
from toolkit.core.instances.window_inverse import candidate_instances
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.records import EVICTED, InstanceRecord, parse_wall_clock_stamp
from toolkit.core.ledger.store import Ledger
from toolkit.orchestration.triggers.state import DueInstance
from toolkit.statuses import Status


@dataclass(frozen=True)
class Decision:
    """What the sweep does with one due instance: `start` it (`rerun`: it had succeeded before the event, so it
    runs again only if that is still so when the run looks), or keep it due for `reason`; `done` ones leave the
    state."""

    item: DueInstance
    start: bool = False
    rerun: bool = False
    done: bool = False
    reason: str = ""


def newly_due(repo: ConfigRepo, process: Process, cluster: str, entries: Iterable[JournalEntry]
              ) -> dict[datetime, DueInstance]:
    """The instances the new journal entries make due, each with the newest of its events' instants."""
    feeds = {item.feed for item in process.inputs}
    due: dict[datetime, DueInstance] = {}
    for entry in entries:
        if entry.feed not in feeds or entry.kind == EVICTED:
            continue
        for t in candidate_instances(repo, process, cluster, [(entry.feed, entry.time)]):
            known = due.get(t)
            if known is None or known.event_ms < entry.ms:
                due[t] = DueInstance(t, entry.ms)
    return due


def merge_due(old: dict[datetime, DueInstance], new: dict[datetime, DueInstance]) -> dict[datetime, DueInstance]:
    """New events move an instance's event instant on (and forget that it was started before them)."""
    merged = dict(old)
    for t, item in new.items():
        known = merged.get(t)
        if known is None or known.event_ms < item.event_ms:
            merged[t] = item if known is None else replace(known, event_ms=item.event_ms, started_ms=None)
    return merged


def decide(repo: ConfigRepo, process: Process, cluster: str, ledger: Ledger, item: DueInstance, now_ms: int,
           restart_after_ms: int) -> Decision:
    """Start it, keep it due, or drop it (succeeded since its event, or outside the process's grid now)."""
    if process_grid(process, cluster).index_of(item.time) is None:
        return Decision(item, done=True, reason="no longer an instance of the process (its validity changed)")
    record = ledger.instance(process.name, item.time)
    if record is not None and _ran_after(record, item.event_ms) and record.status == Status.SUCCEEDED:
        if _events_written(ledger, record):
            return Decision(item, done=True, reason="succeeded after its data was published")
        # Killed between its success record and its outputs' events: a plain start writes them (and runs nothing)
        return Decision(item, start=True, reason="its outputs' events are missing")
    lease = ledger.instance_lock(process.name, item.time).current()
    if lease is not None and lease.live(now_ms / 1000):
        return Decision(item, reason=f"running (run {lease.run_id})")
    if item.started_ms is not None and now_ms - item.started_ms < restart_after_ms \
            and (record is None or not _ran_after(record, item.started_ms - 1)):
        return Decision(item, reason="started by an earlier sweep, not running yet")
    missing = _unpublished(repo, process, cluster, ledger, item.time)
    if missing:
        return Decision(item, reason="waiting for " + ", ".join(missing[:3]) + (" ..." if len(missing) > 3 else ""))
    return Decision(item, start=True, rerun=record is not None and record.status == Status.SUCCEEDED)


def _ran_after(record: InstanceRecord, event_ms: int) -> bool:
    """Whether the record's latest attempt started after the instant (records are to the second)."""
    if record.started is None:
        return False
    return parse_wall_clock_stamp(record.started).timestamp() * 1000 >= event_ms - event_ms % 1000


def _events_written(ledger: Ledger, record: InstanceRecord) -> bool:
    """Whether each output instance the succeeded run published has that run's event (consumers wait on it)."""
    for output in record.published():
        events = ledger.events(output.feed, output.instance)
        if not any(event.run_id == record.run_id for event in events):
            return False
    return True


def _unpublished(repo: ConfigRepo, process: Process, cluster_name: str, ledger: Ledger, t: datetime) -> list[str]:
    """The required input instances of instance t with no publication standing on the cluster."""
    cluster = repo.cluster(cluster_name)
    missing = []
    for item in process.inputs:
        if item.optional:
            continue
        feed = repo.feed(item.feed)
        resolved = describe_input(item, feed, feed_locations(feed, cluster),
                                  feed_grid_for_processes(feed, cluster_name), t, None)
        for needed in resolved.times or ():
            events = ledger.events(feed.name, needed)
            if not events or events[-1].kind == EVICTED:
                missing.append(f"{feed.name}@{needed:%Y-%m-%dT%H:%MZ}")
    return missing
