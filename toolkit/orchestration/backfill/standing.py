"""Where an instance of a backfill stands before it is started, read from the ledgers without a JVM: done already
(a process instance that succeeded, a feed instance replicated and not published again on a source since: done
even when its entity is suspended now), not to run (its entity suspended, the instance held), running under another
caller's lease, or to run (never run, or failed, killed or timed out: a plain call runs it again with its retry
policy's attempts); and, once a run ended other than succeeded, why, as its record says."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from functools import singledispatch

from toolkit.core.entities.model import FeedClusterType
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.control import Switch
from toolkit.core.ledger.locks import LeaseLock
from toolkit.core.ledger.records import EVICTED, DatasetEvent, parse_record
from toolkit.core.ledger.replication_runs import ReplicationRecord
from toolkit.core.ledger.run_locks import describe_holder
from toolkit.core.ledger.store import Ledger
from toolkit.orchestration.backfill.steps import ProcessStep, ReplicationStep, Step, step_cluster
from toolkit.services.runtime.cluster_files import cluster_file_system
from toolkit.services.runtime.run_record import record_path
from toolkit.statuses import Status


class Verdict(str, Enum):
    RUN = "run"
    DONE = "done"  # succeeded or replicated already: skipped, never published twice
    SKIP = "skip"  # suspended or held: not run, and what reads it waits for a later backfill
    RUNNING = "running"  # another caller's live lease holds it: the backfill waits for it to end

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Standing:
    verdict: Verdict
    why: str


@dataclass
class Ledgers:
    """The ledger of each cluster, opened once (JVM-free: file:// or WebHDFS)."""

    repo: ConfigRepo
    lease_seconds: float
    opened: dict[str, Ledger] = field(default_factory=dict)
    switches: dict[tuple[str, str, str], Switch] = field(default_factory=dict)

    def of(self, cluster: str) -> Ledger:
        if cluster not in self.opened:
            on = self.repo.cluster(cluster)
            self.opened[cluster] = Ledger.of(cluster_file_system(on), on, lease_seconds=self.lease_seconds)
        return self.opened[cluster]

    def suspension(self, cluster: str, kind: str, name: str) -> Switch:
        """An entity's suspension on a cluster, read once per plan (which asks it for each instance)."""
        key = (cluster, kind, name)
        if key not in self.switches:
            self.switches[key] = self.of(cluster).control.suspension(kind, name)
        return self.switches[key]


@singledispatch
def standing(step: Step, ledgers: Ledgers, t: datetime) -> Standing:
    raise TypeError(step)


@standing.register
def _(step: ProcessStep, ledgers: Ledgers, t: datetime) -> Standing:
    ledger = ledgers.of(step.cluster)
    record = ledger.instance(step.process, t)
    if record is not None and record.status == Status.SUCCEEDED:  # done, whatever holds the process now
        return Standing(Verdict.DONE, f"succeeded already (run {record.run_id}, started {record.started})")
    suspended = _suspended(ledgers, "process", step.process, step.cluster)
    if suspended is not None:
        return suspended
    hold = ledger.hold(step.process, t)
    if hold is not None:
        return Standing(Verdict.SKIP, hold.sentence())
    held = _held(ledger, instance_lock(step, ledgers, t))
    if held is not None:
        return held
    if record is None:
        return Standing(Verdict.RUN, "never ran")
    if record.status == Status.WAITING:
        return Standing(Verdict.RUN, "waited for its inputs before")
    return Standing(Verdict.RUN, f"{record.status} before, after {record.attempts} attempt(s): run again with its "
                                 "retry policy")


@standing.register
def _(step: ReplicationStep, ledgers: Ledgers, t: datetime) -> Standing:
    target = ledgers.of(step.target)
    copy = _standing_event(target, step.feed, t)
    feed = ledgers.repo.feed(step.feed)
    sources = [_standing_event(ledgers.of(c.name), step.feed, t) for c in feed.clusters
               if c.type is FeedClusterType.SOURCE]
    newest = max((event.published for event in sources if event is not None), default=None)
    if copy is not None and (newest is None or copy.published >= newest):
        return Standing(Verdict.DONE, f"replicated already (published on '{step.target}' at {copy.published})")
    suspended = _suspended(ledgers, "feed", step.feed, step.target)
    if suspended is not None:
        return suspended
    held = _held(target, instance_lock(step, ledgers, t))
    if held is not None:
        return held
    if copy is not None:
        return Standing(Verdict.RUN, f"published again on a source at {newest}, after its copy: copy what changed")
    return Standing(Verdict.RUN, "not replicated yet")


@singledispatch
def why_it_ended(step: Step, ledgers: Ledgers, t: datetime) -> str | None:
    """Why the instance's last run did not succeed, as its record says (a run's status line carries no error when
    the failure is an attempt's), or None."""
    raise TypeError(step)


@why_it_ended.register
def _(step: ProcessStep, ledgers: Ledgers, t: datetime) -> str | None:
    record = ledgers.of(step.cluster).instance(step.process, t)
    return None if record is None else record.error


@why_it_ended.register
def _(step: ReplicationStep, ledgers: Ledgers, t: datetime) -> str | None:
    fs = ledgers.of(step.target).fs
    path = record_path(ledgers.repo.cluster(step.target), "replication", step.feed, t)
    data = fs.read(path) if fs.status(path) is not None else None
    if data is None:
        return None
    record: ReplicationRecord = parse_record(ReplicationRecord, data, path)
    said = [f"{source.source}: {source.reason}" for source in record.sources
            if source.status != Status.SUCCEEDED and source.reason]
    return "; ".join(said) or None


@singledispatch
def instance_lock(step: Step, ledgers: Ledgers, t: datetime) -> LeaseLock:
    """The lock the step's entrypoint holds while it runs the instance."""
    raise TypeError(step)


@instance_lock.register
def _(step: ProcessStep, ledgers: Ledgers, t: datetime) -> LeaseLock:
    return ledgers.of(step.cluster).instance_lock(step.process, t)


@instance_lock.register
def _(step: ReplicationStep, ledgers: Ledgers, t: datetime) -> LeaseLock:
    return ledgers.of(step.target).replication_lock(step.feed, t)


def holder_now(step: Step, ledgers: Ledgers, t: datetime) -> str | None:
    """Who holds the instance now (a live lease), or None."""
    held = _held(ledgers.of(step_cluster(step)), instance_lock(step, ledgers, t))
    return None if held is None else held.why


def _suspended(ledgers: Ledgers, kind: str, name: str, cluster: str) -> Standing | None:
    switch = ledgers.suspension(cluster, kind, name)
    return Standing(Verdict.SKIP, f"the {kind} is suspended on cluster '{cluster}' since {switch.since}") \
        if switch.on else None


def _held(ledger: Ledger, lock: LeaseLock) -> Standing | None:
    lease = lock.current()
    if lease is None or not lease.live(ledger.clock()):
        return None
    return Standing(Verdict.RUNNING, f"held by {describe_holder(lease)}")


def _standing_event(ledger: Ledger, feed: str, t: datetime) -> DatasetEvent | None:
    """The instance's last event when it is a publication (not an eviction)."""
    events = ledger.events(feed, t)
    return events[-1] if events and events[-1].kind != EVICTED else None
