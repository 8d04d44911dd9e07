"""Every instance of a cluster's feeds and processes in a window, judged against its SLA (states.py).

Instance times come from each entity's grid (closed-form: only the window's instances are computed and read); an
instance later than `now` is not due yet. The cluster's SLA of a feed or a process overrides the entity's."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from toolkit.core.el.shift import shift
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import Feed, Process, ProcessSla, Sla
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import FeedLocations, feed_locations
from toolkit.core.instances.grids import feed_grid, process_grid
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileSystem
from toolkit.orchestration.schedule.sla.arrivals import feed_arrival, process_times
from toolkit.orchestration.schedule.sla.states import (
    AT_RISK,
    LATE,
    LATE_LOW,
    MISSED,
    MISSES,
    Judgement,
    Thresholds,
    judge,
)
from toolkit.services.notifications.message import describe_duration


@dataclass(frozen=True)
class Finding:
    """One instance off its SLA. `done` is a feed's arrival or a process's success; `started` a process's first
    start; `source` how a feed's arrival is known (event, flag, folder)."""

    kind: str
    entity: str
    cluster: str
    time: datetime
    state: str
    threshold: str  # slaLow, slaHigh, shouldStartIn or shouldEndIn
    deadline: datetime
    late_seconds: int
    done: datetime | None = None
    started: datetime | None = None
    source: str | None = None

    @property
    def is_miss(self) -> bool:
        return self.state in MISSES

    def sentence(self) -> str:
        late, deadline = describe_duration(self.late_seconds), format_timestamp(self.deadline)
        what = {"feed": "arrived", "process": "succeeded"}[self.kind]
        if self.state == MISSED:
            return f"not {what} {late} after its {self.threshold} deadline {deadline}"
        if self.state == LATE:
            return f"{what} {late} after its {self.threshold} deadline {deadline}"
        started = "started" if self.kind == "process" else what
        if self.state == AT_RISK:
            return f"not {started} by its {self.threshold} deadline {deadline}"
        assert self.state == LATE_LOW
        return f"{started} {late} after its {self.threshold} deadline {deadline}"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "entity": self.entity, "cluster": self.cluster, "time": format_timestamp(self.time),
                "state": self.state, "miss": self.is_miss, "threshold": self.threshold,
                "deadline": format_timestamp(self.deadline), "late_seconds": self.late_seconds,
                "late_by": describe_duration(self.late_seconds), "done": _stamp(self.done),
                "started": _stamp(self.started), "source": self.source, "message": self.sentence()}


@dataclass
class Report:
    cluster: str
    now: datetime
    first: datetime
    last: datetime
    findings: list[Finding] = field(default_factory=list)
    checked: int = 0  # instances judged

    @property
    def misses(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.is_miss]


def check_slas(repo: ConfigRepo, cluster: str, ledger: Ledger, now: datetime, first: datetime, last: datetime,
               only: Collection[EntityRef] | None = None) -> Report:
    """The findings of every instance from `first` to `last` (and not after `now`), oldest first by entity; of the
    entities in `only` when given (`toolkit report` judges each entity over its own window). A feed's arrival is
    read from the ledger and, without an event, from the ledger's file system."""
    report = Report(cluster, now, first, last)
    until = min(last, now)
    for feed in sorted(repo.feeds.values(), key=lambda item: item.name):
        if only is not None and EntityRef(Kind.FEED, feed.name) not in only:
            continue
        sla = feed.sla_on(cluster) if feed.cluster(cluster) is not None else None
        if sla is not None and first <= until:
            _check_feed(report, ledger, ledger.fs, feed, feed_locations(feed, repo.cluster(cluster)), sla, until)
    for process in sorted(repo.processes.values(), key=lambda item: item.name):
        if only is not None and EntityRef(Kind.PROCESS, process.name) not in only:
            continue
        agreed = process_sla(process, cluster)
        if agreed is not None and not process.is_batch_consumer and first <= until:
            _check_process(report, ledger, process, agreed, until)
    return report


def _check_feed(report: Report, ledger: Ledger, fs: FileSystem, feed: Feed, where: FeedLocations, sla: Sla,
                last: datetime) -> None:
    """The feed's instances (`where` they are) from the report's first to `last` judged by its `sla` on the report's
    cluster."""
    zone = resolve_zone(feed.timezone)
    for t in feed_grid(feed, report.cluster).between(report.first, last):
        report.checked += 1
        arrival = feed_arrival(ledger, fs, feed, where, t)
        thresholds = Thresholds(shift(t, sla.low, zone, 1), shift(t, sla.high, zone, 1))
        judgement = judge(thresholds, report.now, arrival.at, arrival.at)
        if judgement is not None:
            report.findings.append(Finding(
                "feed", feed.name, report.cluster, t, judgement.state, _threshold(judgement, "slaLow", "slaHigh"),
                judgement.deadline, judgement.late_seconds, done=arrival.at, source=arrival.source))


def _check_process(report: Report, ledger: Ledger, process: Process, sla: ProcessSla, last: datetime) -> None:
    """The process's instances from the report's first to `last` judged by its `sla` on the report's cluster."""
    zone = resolve_zone(process.timezone)
    for t in process_grid(process, report.cluster).between(report.first, last):
        report.checked += 1
        times = process_times(ledger, process.name, t)
        thresholds = Thresholds(shift(t, sla.should_start_in, zone, 1) if sla.should_start_in else None,
                                shift(t, sla.should_end_in, zone, 1) if sla.should_end_in else None)
        judgement = judge(thresholds, report.now, times.started, times.succeeded)
        if judgement is not None:
            report.findings.append(Finding(
                "process", process.name, report.cluster, t, judgement.state,
                _threshold(judgement, "shouldStartIn", "shouldEndIn"), judgement.deadline, judgement.late_seconds,
                done=times.succeeded, started=times.started))


def _threshold(judgement: Judgement, low: str, high: str) -> str:
    """The threshold a judgement is of, by the entity kind's names for them: a miss is of the high one."""
    return high if judgement.state in MISSES else low


def longest_sla(repo: ConfigRepo, cluster: str) -> timedelta:
    """The longest SLA threshold of the cluster's entities (a month as 31 days): how long after its time an instance
    can still come to miss its SLA, so how far before a window's end its instances must be looked at."""
    spans = [sla.high for feed in repo.feeds.values()
             if feed.cluster(cluster) is not None and (sla := feed.sla_on(cluster)) is not None]
    for process in repo.processes.values():
        agreed = process_sla(process, cluster)
        if agreed is not None:
            spans += [span for span in (agreed.should_start_in, agreed.should_end_in) if span is not None]
    return timedelta(minutes=max((span.approx_minutes() for span in spans), default=0))


def process_sla(process: Process, cluster: str) -> ProcessSla | None:
    """The process's SLA on the cluster: its cluster's own, else the process's (None: it has none there)."""
    on = process.cluster(cluster)
    if on is None:
        return None
    return on.sla if on.sla is not None else process.sla


def _stamp(value: datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else None
