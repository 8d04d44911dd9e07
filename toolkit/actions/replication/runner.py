"""The replication action: pull the instance of a feed for a nominal time (or every instance of a catch-up
window) from its source clusters into a target cluster.

Order per instance: select (delay, validity overlap, sources and their partitions), check each source is
available (else wait until the feed's timeout, then fail), replicate each source's folder atomically
(files.py), write the target's availability flag once every source's part is there, write the run record.
A feed with a data-quality gate has each staged copy checked on the target before it is published
(target_gate.py): a failing `block` gate fails that source as a timeout does (nothing of it published, no flag,
no event, the instance FAILED while the others of a catch-up window go on); a failing `warn` gate publishes.
The gates' results are in the run record (`quality`), the status line (`quality: 11/12 passed`) and the
lineage output's data quality assertions.
All of it under the target ledger's lease for (feed, target, instance): a second caller is refused (exit 5,
naming the holder; in a catch-up window that instance is BLOCKED and the others go on), and the lease is
checked before each publication.
Each instance pulled (or failed) is one OpenLineage run of the job `replication.<feed>` in the target's namespace
(lineage_uses.py): START, then COMPLETE, FAIL (a source timed out, an error) or ABORT (the lease lost); an
instance only waited for emits nothing.
Nothing reads the wall clock: the nominal time and `now` (for the timeout) are passed in.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from toolkit.actions.replication.files import FolderOutcome
from toolkit.actions.replication.lineage_uses import source_uses, target_use
from toolkit.actions.replication.pullers import FilePuller, Puller, TablePullerFactory
from toolkit.actions.replication.target_gate import TargetGate
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed, FeedCluster
from toolkit.core.entities.provenance import Provenance, provenance
from toolkit.core.entities.replication_settings import ReplicationSettings, replication_settings
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.quality_results import GateResult, summary
from toolkit.core.ledger.records import Written
from toolkit.core.ledger.replication_runs import CopyTask, ReplicationRecord, SourceCopy
from toolkit.core.ledger.run_locks import describe_holder
from toolkit.core.ledger.switches import require_no_safemode, require_running_allowed
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import BlockedError, UsageError
from toolkit.planners.replication import (
    Source,
    deadline,
    instance_for,
    instances_between,
    outside_validity,
    sources_of,
    target_of,
)
from toolkit.services.openlineage.facts import DatasetUse, RunSubject
from toolkit.services.openlineage.run import Lineage, RunLineage
from toolkit.services.quality.assertions import assertions_of
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, Lifecycle, feed_checks
from toolkit.services.runtime.lineage import watched
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.run_record import record_path, write_record
from toolkit.statuses import Status, worst

REPLICATION = ActionKind("replication", "replication", "replication", "replication")


@dataclass
class SourceOutcome:
    source: str
    status: Status  # SUCCEEDED, SKIPPED (outside validity), WAITING (not available yet), FAILED (timed out, copy)
    source_path: str | None = None
    target_path: str | None = None
    reason: str | None = None
    folder: FolderOutcome = field(default_factory=FolderOutcome)
    timed_out: bool = False  # FAILED because the source instance was not there by the feed's timeout


@dataclass
class InstanceOutcome:
    instance: datetime | None
    sources: list[SourceOutcome]
    flag_written: bool = False
    record: str | None = None
    blocked: str | None = None  # why another run's lease kept this run off the instance
    took_over: str | None = None  # the killed run whose expired lease this run took over

    @property
    def status(self) -> Status:
        if self.blocked:
            return Status.BLOCKED
        return worst(outcome.status for outcome in self.sources)

    @property
    def quality(self) -> tuple[GateResult, ...]:
        """The data-quality gates its staged copies were checked against, source by source."""
        return tuple(result for outcome in self.sources for result in outcome.folder.quality)


@dataclass
class ReplicationResult:
    feed: str
    target: str
    instances: list[InstanceOutcome]
    elapsed_seconds: float = 0.0

    @property
    def status(self) -> Status:
        return worst(instance.status for instance in self.instances)  # the run's status: its instances' worst

    def reasons(self) -> list[str]:
        blocked = [instance.blocked.rstrip(".") for instance in self.instances if instance.blocked]
        return blocked + [f"{outcome.source}: {outcome.reason}" for instance in self.instances
                          for outcome in instance.sources if outcome.reason and outcome.status != Status.SUCCEEDED]

    def counters(self) -> dict[str, object]:
        folders = [outcome.folder for instance in self.instances for outcome in instance.sources]
        copied = sum(folder.bytes_copied for folder in folders)
        copy_seconds = sum(folder.copy_seconds for folder in folders)
        return {
            "instances": len(self.instances),
            "instances_published": sum(1 for instance in self.instances
                                       if any(outcome.folder.published for outcome in instance.sources)),
            "files_copied": sum(folder.files_copied for folder in folders),
            "files_skipped": sum(folder.files_skipped for folder in folders),
            "bytes_copied": copied,
            "copy_seconds": round(copy_seconds, 3),
            "throughput_mib_s": round(copied / copy_seconds / 2**20, 1) if copy_seconds > 0 else 0.0,
            "elapsed_seconds": round(self.elapsed_seconds, 3),
            **_copiers(folders),
            **({"quality": checked} if (checked := summary(self.quality)) else {}),
        }

    @property
    def quality(self) -> tuple[GateResult, ...]:
        return tuple(result for instance in self.instances for result in instance.quality)


def _copiers(folders: list[FolderOutcome]) -> dict[str, object]:
    """Which copier ran (`driver`, `executors`, or both in a catch-up window), and the executors' Spark tasks and
    executors; nothing when no file was copied."""
    used = sorted({folder.copier for folder in folders if folder.copier})
    if not used:
        return {}
    slices = [each for folder in folders for each in folder.copy_slices]
    return {"copier": "+".join(used), "copy_tasks": len(slices),
            "copy_executors": len({each.executor for each in slices})} if slices else {"copier": "+".join(used)}


@dataclass(frozen=True)
class _Call:
    """What stays the same for every instance of one run."""

    repo: ConfigRepo
    feed: Feed
    target: Cluster
    on_target: FeedCluster
    sources: list[Source]
    every_source: list[Source]  # the feed's, for finishing an instance when only some are pulled
    settings: ReplicationSettings
    context: RunContext
    now: datetime
    nominal: datetime
    puller: Puller
    definition: Provenance  # the feed's, hashed once for every instance's event and lineage run
    recopy: bool = False  # every file copied again: an event only when the content differs from the last one's

    @property
    def fs(self) -> FileSystem:
        return self.context.fs


@dataclass(frozen=True)
class ReplicationRequest:
    """Which instances a replication call copies: the one of `nominal`, or with `window` every instance in it (its
    first and last included); from `source` only, when given, else from every source; `now` is the time a source's
    timeout and the feed's late arrival are judged by. `recopy`: copy every file again, trusting nothing an earlier
    run staged or published (`toolkit rerun` without --continue); else only what is missing or changed."""

    nominal: datetime
    now: datetime
    source: str | None = None
    window: tuple[datetime, datetime] | None = None
    recopy: bool = False


def run_replication(repo: ConfigRepo, feed_name: str, target_name: str, request: ReplicationRequest,
                    context: RunContext, *, tables: TablePullerFactory | None = None,
                    gate: TargetGate | None = None) -> ReplicationResult:
    """Replicate the instances `request` asks for into `target_name`, through the context's file system (which
    reaches every cluster). A table feed needs `tables`, which makes the puller that talks to the clusters'
    metastores; a feed with a data-quality gate needs `gate`, which checks staged copies in Spark. BlockedError
    when another run holds the instance's lease (in a window: that instance's outcome is BLOCKED)."""
    began = time.perf_counter()
    fs, nominal, source, window = context.fs, request.nominal, request.source, request.window
    feed = repo.feed(feed_name)
    target, on_target = target_of(repo, feed, target_name)
    sources, settings = sources_of(repo, feed, source), replication_settings(feed)
    # Safemode (5) or the feed suspended (4) refuse the call before a puller connects to a metastore (a table
    # feed's), once for a whole window; each instance's lifecycle (services/runtime/lifecycle.py) looks again before its
    # lease, for a switch set while a window runs.
    require_running_allowed(fs, target, "feed", feed.name)
    for each in sources:
        require_no_safemode(fs, each.cluster)
    if feed.quality is not None and gate is None:
        raise UsageError(f"Feed '{feed.name}' has a data-quality gate ({feed.quality.suite}): its replication checks "
                         "each instance on the target in Spark before publishing it; run it through "
                         "entrypoints/replication.py.")
    if feed.table_on(target.name) is None:
        puller: Puller = FilePuller(feed, target, fs, settings, gate, recopy=request.recopy)
    elif tables is None:
        raise UsageError(f"Feed '{feed.name}' is a catalog table on cluster '{target.name}': its replication "
                         "exports, copies and imports partitions; run it through entrypoints/replication.py.")
    else:
        puller = tables(feed, target, sources, context, gate)
    every_source = sources if source is None else sources_of(repo, feed)
    call = _Call(repo, feed, target, on_target, sources, every_source, settings, context, request.now, nominal, puller,
                 provenance(feed, Path(repo.root), repo.revision), request.recopy)
    if window is None:
        instances: list[datetime | None] = [instance_for(feed, on_target, nominal)]
    else:
        instances = list(instances_between(feed, on_target, *window))
    replicate = _replicate_instance if window is None else _replicate_or_blocked
    if len(instances) == 1 or call.settings.parallel == 1:
        outcomes = [replicate(call, instance) for instance in instances]
    else:
        with ThreadPoolExecutor(max_workers=call.settings.parallel) as pool:
            outcomes = list(pool.map(lambda instance: replicate(call, instance), instances))
    return ReplicationResult(feed.name, target.name, outcomes, time.perf_counter() - began)


def _replicate_or_blocked(call: _Call, instance: datetime | None) -> InstanceOutcome:
    """One instance of a catch-up window: a lease held by another run makes it BLOCKED, not the window."""
    try:
        return _replicate_instance(call, instance)
    except BlockedError as err:
        return InstanceOutcome(instance, [], blocked=str(err))


def _replicate_instance(call: _Call, instance: datetime | None) -> InstanceOutcome:
    """One instance, in the lifecycle of every feed action (services/runtime/lifecycle.py: the target's switches, the
    instance's lease, lineage run and event carrying the definition, a failure told to the feed's `notification`);
    an instance outside the validities of all its sources is skipped before it: nothing to lock, nothing to do."""
    skipped = [SourceOutcome(source.cluster.name, Status.SKIPPED, reason=reason) for source in call.sources
               if (reason := outside_validity(call.feed, instance, call.nominal, call.on_target,
                                              source.on_cluster)) is not None]
    if instance is None or len(skipped) == len(call.sources):
        return InstanceOutcome(instance, skipped)
    stamp = format_timestamp(instance)
    what = f"replication of the instance {stamp} of feed '{call.feed.name}' into cluster '{call.target.name}'"
    # A notice's rerun names the instance: with a delay, `--time` alone would name an earlier one (the call's time
    # minus the delay), so the rerun is a window of that one instance.
    rerun = ("--from", stamp, "--to", stamp) if call.on_target.delay else ()
    feed_call = FeedCall(REPLICATION, call.repo, call.feed, call.target, instance, call.definition, rerun)
    with feed_checks(feed_call, call.context) as checked, checked.leased(
            lambda ledger: ledger.replication_lock(call.feed.name, instance), what, LeaseDetails(time=stamp)) as life:
        return _replicate_held(call, life)


def _replicate_held(call: _Call, life: Lifecycle) -> InstanceOutcome:
    feed, puller, instance, lease = call.feed, call.puller, life.call.nominal, life.lease
    outcomes, ready = [], []
    for source in call.sources:
        reason = outside_validity(feed, instance, call.nominal, call.on_target, source.on_cluster)
        if reason is not None:
            outcomes.append(SourceOutcome(source.cluster.name, Status.SKIPPED, reason=reason))
            continue
        source_place, target_place = puller.places(source, instance)
        outcome = SourceOutcome(source.cluster.name, Status.SUCCEEDED, source_place, target_place)
        outcomes.append(outcome)
        missing = puller.missing(source, instance)
        if missing is None:
            ready.append((source, outcome))
            continue
        until = deadline(feed, instance, call.settings)
        if call.now < until:
            outcome.status = Status.WAITING
            outcome.reason = (f"the instance {format_timestamp(instance)} is not available on "
                              f"'{source.cluster.name}' yet ({missing}); waiting until {format_timestamp(until)}")
        else:
            outcome.status, outcome.timed_out = Status.FAILED, True
            outcome.reason = (f"the instance {format_timestamp(instance)} was not available on "
                              f"'{source.cluster.name}' by {format_timestamp(until)} (the feed's timeout "
                              f"{call.settings.timeout} after it): {missing}; timed out")
    result = InstanceOutcome(instance, outcomes,
                             took_over=describe_holder(lease.previous) if lease.previous is not None else None)
    run, inputs, planned = _lineage(call, life, [source for source, _ in ready], outcomes)
    fingerprint = None
    with watched(run, inputs, planned):
        for source, outcome in ready:
            outcome.folder = puller.pull(source, instance, lease.check)  # checked before each publishing step
            if outcome.folder.blocked:
                outcome.status, outcome.reason = Status.FAILED, _blocked(outcome.folder.quality, call.target)
        if all(outcome.status == Status.SUCCEEDED for outcome in outcomes):
            changed = any(o.folder.published for o in outcomes)
            result.flag_written = puller.finish(instance, call.every_source, changed, lease.check)
            fingerprint = _record_event(call, life, outcomes, changed or result.flag_written)
        result.record = record_path(call.target, "replication", feed.name, instance)
        lease.check()
        write_record(call.fs, result.record, _record(call, result))
    failed = [o for o in outcomes if o.status == Status.FAILED]
    assertions = assertions_of(result.quality)
    if failed:
        reasons = "; ".join(f"{o.source}: {o.reason}" for o in failed)
        run.fail(reasons, inputs,
                 [DatasetUse.at(feed, call.target, [instance], assertions=assertions)] if assertions else [])
        life.failed(reasons, timed_out=all(o.timed_out for o in failed))
    elif planned:  # lineage on, and the run emitted
        run.complete(inputs, [target_use(feed, call.target, instance, fingerprint, [o.folder for o in outcomes],
                                         assertions)])
    return result


def _blocked(results: tuple[GateResult, ...], target: Cluster) -> str:
    """Why a source's staged copy was not published: its blocking gates' failures, as one clause."""
    return ("; ".join(result.describe_failures() for result in results if result.blocks)
            + f" (its on-failure is block): nothing of it was published on '{target.name}' and its staged copy "
              "was discarded")


def _lineage(call: _Call, life: Lifecycle, pulled: list[Source],
             outcomes: list[SourceOutcome]) -> tuple[RunLineage, list[DatasetUse], list[DatasetUse]]:
    """The lineage run of one replication of an instance, its inputs and planned output; nothing when lineage is
    off, or when the run pulls nothing and fails nothing (sources only waited for: a later call replicates it)."""
    if not call.context.lineage.enabled or (not pulled and all(o.status != Status.FAILED for o in outcomes)):
        return Lineage.off().run(RunSubject(REPLICATION.job, call.feed.name)), [], []
    instance = life.call.nominal
    return life.run(), source_uses(call.fs, call.feed, pulled, instance), [
        DatasetUse.at(call.feed, call.target, [instance])]


def _record_event(call: _Call, life: Lifecycle, outcomes: list[SourceOutcome], changed: bool) \
        -> Fingerprint | None:
    """The target's dataset event, right after the instance became visible there. A run that changed nothing
    (the target was up to date) records one only when no event says so yet: the run before it was killed
    between its publication and its event. The instance's fingerprint on the target, None while not visible."""
    instance = life.call.nominal
    pulled = [outcome.folder for outcome in outcomes if outcome.status == Status.SUCCEEDED]
    whole = len(call.every_source) == 1 and not call.every_source[0].partition  # one source fills the instance
    state = call.puller.on_target(instance, pulled[0].unchanged_target if whole and len(pulled) == 1 else None)
    if not state.available:
        return None  # another source's part is still missing: not visible yet
    life.lease.check()
    fingerprint = state.fingerprint
    life.published(feed_locations(call.feed, call.target).event_location(instance), fingerprint,
                   unless_recorded=not changed or call.recopy,
                   producer="replication:" + ",".join(o.source for o in outcomes if o.status == Status.SUCCEEDED))
    return fingerprint


def _record(call: _Call, result: InstanceOutcome) -> ReplicationRecord:
    return ReplicationRecord(
        call.feed.name, call.target.name, format_timestamp(call.nominal), call.context.run_id,
        instance=format_timestamp(result.instance) if result.instance else None, status=result.status,
        flag_written=result.flag_written, took_over=result.took_over, sources=[SourceCopy(
            outcome.source, outcome.status, outcome.reason, outcome.source_path, outcome.target_path,
            outcome.folder.files_copied, outcome.folder.files_skipped, outcome.folder.bytes_copied,
            round(outcome.folder.copy_seconds, 3), outcome.folder.published, list(outcome.folder.links_skipped),
            outcome.folder.copier, [CopyTask(each.executor, each.host, each.files, each.bytes, each.seconds,
                                             each.attempt) for each in outcome.folder.copy_slices],
        ) for outcome in result.sources],
        quality=Written.of(GateResult, result.quality))
