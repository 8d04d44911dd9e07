"""The readings of a cluster's feeds and processes over a window, read as `toolkit status`, `toolkit summary` and
`toolkit sla` read them: a process's instances are their outlines (`Ledger.instance_outlines`: a roll-up's digest)
with the status the rows of `toolkit/views/status/instance_rows.py` show (held: SUSPENDED; recorded RUNNING: its row), a
feed's are its dataset events, and SLA misses are the SLA check's findings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from itertools import compress, groupby

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Feed, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations, under_root
from toolkit.core.instances.grids import feed_grid, process_grid
from toolkit.core.ledger.records import EVENT_KINDS, EVICTED, STATUSES, DatasetEvent, stamp_seconds
from toolkit.core.ledger.rollup_records import month_of
from toolkit.core.ledger.store import Ledger
from toolkit.orchestration.schedule.sla.arrivals import feed_arrival
from toolkit.orchestration.schedule.sla.check import Report, process_sla
from toolkit.orchestration.schedule.sla.states import MISSES
from toolkit.statuses import Status
from toolkit.views.metrics.readings import FeedReading, Labels, ProcessReading, Window
from toolkit.views.status.instance_rows import SUSPENDED, instance_rows

UNRECORDED = "unrecorded"  # an instance of the window with no dataset event on this cluster
FEED_STATES = (*EVENT_KINDS, UNRECORDED)
PROCESS_STATES = (*STATUSES, SUSPENDED)
FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.TIMEDOUT, Status.KILLED)
_FINISHED_NAMES = frozenset(status.value for status in FINISHED)


def labels_of(entity: Feed | Process, cluster: str) -> Labels:
    pipelines = entity.pipelines if isinstance(entity, Process) else ()
    return Labels(cluster, entity.name, ",".join(sorted(pipelines)), tuple(sorted(entity.tags.items())))


@dataclass(frozen=True)
class SlaMisses:
    """The SLA check's misses among the window's instances by entity and state, counted once for the cluster: each
    of its thousands of entities looks up its own instead of going through every finding."""

    counts: Mapping[tuple[str, str], Mapping[str, int]]  # (kind, entity name) -> missed or late -> count

    @classmethod
    def of(cls, report: Report, window: Window) -> SlaMisses:
        counts: dict[tuple[str, str], Counter[str]] = {}
        for finding in report.findings:
            if finding.is_miss and window.holds(finding.time):
                counts.setdefault((finding.kind, finding.entity), Counter())[finding.state] += 1
        return cls(counts)

    def of_entity(self, kind: str, name: str) -> tuple[tuple[str, int], ...]:
        """The entity's misses by state (missed, late), every state included."""
        counted = self.counts.get((kind, name), {})
        return tuple((state, counted.get(state, 0)) for state in MISSES)


@lru_cache(maxsize=256)
def window_times(grid: InstanceGrid, window: Window) -> tuple[datetime, ...]:
    """The grid's instances in the window: computed once for the entities that share a grid (most do)."""
    return tuple(t for t in grid.between(window.first, window.now) if window.holds(t))


def feed_reading(feed: Feed, cluster: Cluster, ledger: Ledger, window: Window, sla: SlaMisses) -> FeedReading:
    """A feed's instances of the window by their last event's kind, and its newest instance there: the newest with
    a publication event, or, as `toolkit sla` judges an outside producer's, with its flag (or folder) in place."""
    grid = feed_grid(feed, cluster.name)
    event_times = ledger.feed_event_times(feed.name)
    recorded = set(event_times)
    read: dict[datetime, list[DatasetEvent]] = {}

    def events(t: datetime) -> list[DatasetEvent]:
        if t not in read:
            read[t] = ledger.events(feed.name, t) if t in recorded else []
        return read[t]

    counts = dict.fromkeys(FEED_STATES, 0)
    times = window_times(grid, window)
    with_events = [t for t in times if t in recorded]  # the others are unrecorded, with no read
    for t in with_events:
        found = events(t)
        counts[found[-1].kind if found else UNRECORDED] += 1
    counts[UNRECORDED] += len(times) - len(with_events)
    newest = _newest_in_window(feed, cluster, ledger, times, with_events, events) or \
        _newest_recorded([t for t in event_times if t <= window.first], events)
    zone = resolve_zone(feed.timezone)
    base = newest[0] if newest is not None else window.now
    end = shift(base, feed.frequency, zone, 1)
    agreed = feed.sla_on(cluster.name)
    stale_after = (end - base).total_seconds() + \
        ((shift(base, agreed.high, zone, 1) - base).total_seconds() if agreed is not None else 0.0)
    return FeedReading(labels_of(feed, cluster.name), tuple(counts.items()),
                       newest[1] if newest is not None else None, end.timestamp() if newest is not None else None,
                       stale_after, sla.of_entity("feed", feed.name) if agreed is not None else ())


Events = Callable[[datetime], list[DatasetEvent]]


def _newest_in_window(feed: Feed, cluster: Cluster, ledger: Ledger, times: Sequence[datetime],
                      with_events: Sequence[datetime], events: Events) -> tuple[datetime, float | None] | None:
    """(the newest instance of the window that is there, when it got there): from its events, else its flag."""
    where = feed_locations(feed, cluster)
    # no instance can be there when the folder above the data path's first variable is not: one call, not one a time
    probe = not where.is_table and ledger.fs.exists(under_root(where.root, where.paths["data"].static_prefix))
    for t in reversed(times if probe else with_events):  # without a probe, only an instance with events can be there
        found = events(t)
        if found:
            if found[-1].kind != EVICTED:
                return t, stamp_seconds(found[-1].published)
            continue
        if not probe:
            continue
        arrival = feed_arrival(ledger, ledger.fs, feed, where, t)
        if arrival.at is not None:
            return t, arrival.at.timestamp()
    return None


def _newest_recorded(times: list[datetime], events: Events) -> tuple[datetime, float | None] | None:
    """Before the window, from the events alone (no flag is probed back through the years)."""
    for t in reversed(times):
        found = events(t)
        if found and found[-1].kind != EVICTED:
            return t, stamp_seconds(found[-1].published)
    return None


def process_reading(repo: ConfigRepo, process: Process, cluster: Cluster, ledger: Ledger, window: Window,
                    sla: SlaMisses) -> ProcessReading:
    """A process's instances of the window by the status `toolkit status` shows, and its newest success: from the
    instances' outlines (a roll-up's are its digest: no state line parsed), as `toolkit status` reads them; an
    instance recorded RUNNING is its row (whether its run is alive is its lock's to say). Counted a column at a
    time (the metrics of a thousand processes count 168,000 instances in a week)."""
    times = window_times(process_grid(process, cluster.name), window)
    outlines = ledger.outline_columns(process.name, times)
    statuses, durations, ended = list(outlines.statuses), list(outlines.durations), list(outlines.ended)
    if Status.RUNNING in statuses:
        running = {t: n for n, t in enumerate(outlines.times) if statuses[n] == Status.RUNNING}
        for row in instance_rows(repo, process, cluster, ledger, list(running), window.now.timestamp(),
                                 with_missing=False):
            n = running[row.time]
            statuses[n], durations[n], ended[n] = row.status, row.duration_seconds, stamp_seconds(row.ended)
    holds = ledger.holds(process.name)
    held_unrecorded = 0  # held instances with no record: SUSPENDED, not WAITING
    if holds:
        position = {t: n for n, t in enumerate(outlines.times)}
        for t in holds.keys() & times:
            at = position.get(t)
            if at is None:
                held_unrecorded += 1
            else:
                statuses[at] = SUSPENDED
    counts = dict.fromkeys(PROCESS_STATES, 0)
    for status, count in Counter(statuses).items():
        counts[status] = counts.get(status, 0) + count
    counts[Status.WAITING] += len(times) - len(statuses) - held_unrecorded
    counts[SUSPENDED] += held_unrecorded
    # the known durations of the finished instances (whole seconds: the histogram counts and sums them as floats)
    finished = tuple(duration for duration in compress(durations, map(_FINISHED_NAMES.__contains__, statuses))
                     if duration is not None)
    newest = next((n for n in range(len(statuses) - 1, -1, -1) if statuses[n] == Status.SUCCEEDED), None)
    last_success = ended[newest] if newest is not None else _success_before(ledger, process.name, window.first)
    agreed = process_sla(process, cluster.name)  # a miss is past shouldEndIn: without it, none can be counted
    misses = sla.of_entity("process", process.name) if agreed is not None and agreed.should_end_in else ()
    return ProcessReading(labels_of(process, cluster.name), tuple(counts.items()), last_success,
                          sum(outlines.attempts), finished, misses)


def _success_before(ledger: Ledger, process: str, first: datetime) -> float | None:
    """When the newest success at or before the window's start ended (None: the ledger has none): read a month at
    a time from the newest, so that a process failing for a week reads back to its last success only."""
    times = sorted((t for t in ledger.recorded_times(process) if t <= first), reverse=True)
    for _, month in groupby(times, month_of):
        outlines = ledger.instance_outlines(process, month)
        for t in sorted(outlines, reverse=True):
            if outlines[t].status == Status.SUCCEEDED:
                return outlines[t].ended
    return None
