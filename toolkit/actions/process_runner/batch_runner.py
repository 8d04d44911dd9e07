"""One run of a batch consumer (a process without frequency, `trigger: data`): `process.py --batch`.

1. now (the runner's clock) must lie in the process's validity on the cluster (else exit 4); safemode (5) or the
   process suspended (4) stop it before anything is touched;
2. it claims the oldest open plan of its queue whose lease is free (a replay: exactly the plan's events), else
   plans a new batch from the pending events of its input feeds (`trigger.condition` all or any, `cut` evaluated
   at now in the process's time zone, `max-batch`, `ordered`); nothing to consume is exit 4;
3. it takes the lock of each output instance (the process instance lock of that time: two batches that snap
   onto the same output instance never publish it at once) and one of the process's `parallel` slots (5 while
   live runs hold them);
4. each attempt checks the batch's input instances are still there (an instance evicted since fails the
   attempt, naming it), runs the workflow with `ctx.batch` and publishes the outputs through the process
   runner's publication (staged, swapped into place, replacing what was there);
5. on success: the attempt recorded SUCCEEDED (`batches/<seq>/`), the outputs' dataset events, then the plan's
   commit; on failure the process's retry policy, and after the last attempt the claim is released (the plan
   stays open and the next run replays it). A killed run leaves its lease to expire; a replay that finds the
   batch recorded SUCCEEDED (killed after publishing) writes the missing events and the commit only.
The claim's and the locks' leases are renewed while the run works; a lost lease stops the run without commit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import partial

from toolkit.actions.process_runner.attempt_facts import AttemptFacts
from toolkit.actions.process_runner.followed_jobs import AttemptJobs, job_to_follow
from toolkit.actions.process_runner.lineage_uses import batch_input_uses
from toolkit.actions.process_runner.retry_policy import attempts_of
from toolkit.actions.process_runner.run_results import InstanceResult
from toolkit.actions.process_runner.runner import ProcessRunner
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import feed_grid_for_processes, require_on_cluster
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget, file_output, staging_key, table_output
from toolkit.core.ledger.batch_plan import (
    BatchInput,
    batch_inputs,
    due_feeds,
    newest_time,
    output_time,
    trigger_cut,
)
from toolkit.core.ledger.batch_records import BatchLog, BatchRecord
from toolkit.core.ledger.consumption import Claim, ConsumerQueue, Plan
from toolkit.core.ledger.locks import Lease, LeaseDetails, LeaseKeeper, LeaseLock, LockLostError
from toolkit.core.ledger.records import (
    EVENT_KINDS,
    EVICTED,
    AttemptJob,
    DatasetEvent,
    ReadInput,
    Written,
    record_time,
    wall_clock_stamp,
)
from toolkit.core.ledger.run_locks import describe_holder
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import BlockedError, SkippedError, ToolkitError, UsageError
from toolkit.extensions.workflow_engines.context import (
    BatchContext,
    BatchInstance,
    TableInput,
    TableOutput,
    WorkflowContext,
)
from toolkit.extensions.workflow_engines.preparation import RemoteJobWorkflow
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError
from toolkit.services.notifications.message import ATTEMPT_FAILED, FAILED, SUCCEEDED
from toolkit.services.quality.gate import QualityBlocked
from toolkit.services.runtime.lifecycle import batch_lifecycle
from toolkit.services.staged_outputs.file_outputs import NothingWrittenError, clear_leftovers
from toolkit.statuses import Status

Target = FileOutput | TableOutputTarget


class InputGoneError(ToolkitError):
    """An input instance of the batch is not available any more (evicted since): the attempt fails."""


@dataclass
class BatchResult(InstanceResult):
    """An instance result whose `time` is the newest input instance consumed; `seq` the plan, `events` its ids."""

    seq: int = 0
    events: list[str] = field(default_factory=list)
    inputs: dict[str, list[str]] = field(default_factory=dict)  # input name -> instance times consumed


class BatchRunner:
    """Runs batches of the batch consumer `runner.process` with the process runner's workflow and publication."""

    _told_about: tuple[datetime, int | None]  # what a failure outside the attempts is about: a time, the batch

    def __init__(self, runner: ProcessRunner) -> None:
        process = runner.process
        if not process.is_batch_consumer:
            raise UsageError(f"The process '{process.name}' has a frequency: it runs instances (give --time), not "
                             "batches; --batch is for processes without frequency (batch consumers).")
        self.runner, self.process, self.log_records = runner, process, BatchLog(runner.ledger, process.name)
        self.queue = ConsumerQueue(runner.ledger, process.name, {item.feed for item in process.inputs},
                                   kinds=EVENT_KINDS)

    # Step 1 and 2

    def check_time(self, now: datetime) -> None:
        validity = require_on_cluster(self.process, self.runner.cluster.name).validity
        if not validity.start <= now < validity.end:
            raise SkippedError(f"Now ({format_timestamp(now)}) is outside the validity of {self.runner.owner} on "
                               f"cluster '{self.runner.cluster.name}' ({format_timestamp(validity.start)} to "
                               f"{format_timestamp(validity.end)}): nothing to do.")

    def claim(self, now: datetime) -> Claim:
        """The oldest open plan whose lease is free, else a new plan of pending events; SkippedError when there
        is nothing to consume, BlockedError when live runs hold every open plan and no new one may be made."""
        run_id, details = self.runner.run_id, LeaseDetails(process=self.process.name)
        trigger = self.process.trigger
        for _ in range(3):  # another run may claim the plan we just made: look again
            held: list[Lease] = []
            for plan in self.queue.open_plans():
                claim = self.queue.claim(run_id, plan.seq, details)  # None: committed since, or held
                if claim is not None:
                    return claim
                lease = self.queue.lease(plan.seq)
                if lease is not None and lease.live(self.runner.ledger.clock()):
                    held.append(lease)
            if held and trigger.ordered:
                raise BlockedError(f"The {self.runner.owner} consumes one batch at a time (`ordered`) and "
                                   f"{describe_holder(held[0])} holds the oldest: call again later.")
            cut = trigger_cut(self.process, now, self.runner.zone)
            try:
                self._require_condition(cut)
                outcome = self.queue.create_plan(run_id, max_batch=trigger.max_batch, cut=cut,
                                                 ordered=trigger.ordered)
                if outcome is None:
                    raise SkippedError(self._nothing(cut))
            except SkippedError:
                if held:  # nothing new, but a live run consumes a batch: not done yet
                    raise BlockedError(f"The {self.runner.owner} has nothing new to consume and "
                                       f"{describe_holder(held[0])} consumes its open batch: call again later.") \
                        from None
                raise
            claim = self.queue.claim(run_id, outcome.plan.seq, details)
            if claim is not None:
                return claim
        raise BlockedError(f"Other runs of {self.runner.owner} claimed every batch ready: call again later.")

    def _require_condition(self, cut: datetime | None) -> None:
        waiting = due_feeds(self.process, self.queue.pending(), cut)
        if waiting:
            every = len(waiting) == len({item.feed for item in self.process.inputs})
            raise SkippedError(self._nothing(cut, [] if every else waiting))

    def _nothing(self, cut: datetime | None, waiting: list[str] | None = None) -> str:
        upto = f" up to the cut {format_timestamp(cut)}" if cut is not None else ""
        if waiting:
            return (f"The {self.runner.owner} has nothing to consume: its condition is `all` and no new instance "
                    f"of {', '.join(repr(f) for f in waiting)} is published{upto}.")
        return f"The {self.runner.owner} has nothing to consume: no new instance of its inputs is published{upto}."

    # Step 3 to 5

    def run(self) -> BatchResult:
        """The next batch, through the lifecycle of a batch consumer's run (services/runtime/lifecycle.py): a
        failure outside the batch's attempts told to the process's `notification` (about the batch once it is
        claimed), the switches, then the claim of a plan of the queue."""
        runner = self.runner
        now = runner.clock.now()
        self.check_time(now)
        self._told_about = (now, None)
        with batch_lifecycle(self.process, runner.cluster, runner.run_context, tell=lambda error, timed_out:
                             runner.notices.failed_outside_batch(*self._told_about, error, timed_out)):
            claim = self.claim(now)
            lost = False
            try:
                return self._run_claimed(claim)
            except LockLostError:
                lost = True  # another run holds the plan now: nothing more is written
                raise
            finally:
                if not lost:
                    self.queue.release(claim)  # nothing when committed (the commit released it)

    def _run_claimed(self, claim: Claim) -> BatchResult:
        runner, plan = self.runner, claim.plan
        self._told_about = (_plan_newest(plan), plan.seq)
        if claim.previous is not None:
            self._record_killed(plan.seq, claim.previous)
        state = self.log_records.state(plan.seq)
        inputs = batch_inputs(self.process, self.queue.events(plan))
        newest = newest_time(inputs)
        result = BatchResult(newest or _plan_newest(plan), Status.RUNNING, seq=plan.seq,
                             events=sorted(plan.event_ids),
                             inputs={i.name: [format_timestamp(t) for t in i.times] for i in inputs},
                             record=f"{runner.ledger.layout.batch_folder(self.process.name, plan.seq)}/batch.json")
        self._told_about = (result.time, plan.seq)  # the newest input the batch consumes
        if state is not None and state.status == Status.SUCCEEDED:  # killed after publishing: finish the job
            with LeaseKeeper([claim.lock], runner.ledger.lease_seconds / 3):
                runner.publishing.record_events(state.published(), state.run_id, missing_only=True)
                self.queue.commit(claim)
            result.status, result.outputs = Status.SUCCEEDED, state.published()
            result.reason = (f"batch {plan.seq} of {runner.owner} was published by run {state.run_id}; its events "
                             "and commit are written now")
            return result
        before = state.attempt if state is not None else 0
        if newest is None:  # evictions only: nothing for the workflow, the events count as consumed
            self._write(plan, inputs, AttemptFacts(before + 1, Status.SUCCEEDED, _now(), _now()))
            with LeaseKeeper([claim.lock], runner.ledger.lease_seconds / 3):
                self.queue.commit(claim)
            result.status, result.reason = Status.SUCCEEDED, f"batch {plan.seq} holds evictions only: consumed"
            return result
        targets = self._targets(newest)
        locks = self._lock_outputs(plan, targets)
        try:
            slot, holders = runner.ledger.take_slot(self.process.name, self.process.parallel, runner.run_id,
                                                    LeaseDetails(batch=plan.seq))
            if slot is None:
                running = ", ".join(str(h.details.batch) if h.details.batch is not None else h.run_id
                                    for h in holders)
                raise BlockedError(f"The {runner.owner} already runs {self.process.parallel} batch(es) or "
                                   f"instance(s) (its `parallel`): {running}; call again later.")
            try:
                with LeaseKeeper([claim.lock, *locks, slot], runner.ledger.lease_seconds / 3) as keeper:
                    return self._attempts(claim, inputs, targets, keeper, before, result)
            finally:
                slot.release()
        finally:
            for lock in locks:
                lock.release()

    def _targets(self, newest: datetime) -> tuple[Target, ...]:
        repo, cluster = self.runner.repo, self.runner.cluster
        targets: list[Target] = []
        for output in self.process.outputs:
            feed = repo.feed(output.feed)
            where = feed_locations(feed, cluster)
            t = output_time(self.process, output.name, feed.name, feed_grid_for_processes(feed, cluster.name),
                            newest)
            key = staging_key(self.process.name, t)
            targets.append(table_output(output.name, feed, where, t, key) if where.is_table
                           else file_output(output.name, feed, where, t, key))
        return tuple(targets)

    def _lock_outputs(self, plan: Plan, targets: tuple[Target, ...]) -> list[LeaseLock]:
        """The process instance lock of each output time, oldest first; BlockedError (all released) when a live
        run holds one."""
        taken: list[LeaseLock] = []
        for t in sorted({target.time for target in targets}):
            lock = self.runner.ledger.instance_lock(self.process.name, t)
            outcome = lock.try_acquire(self.runner.run_id, LeaseDetails(time=format_timestamp(t), batch=plan.seq))
            if not outcome.taken:
                for held in taken:
                    held.release()
                raise BlockedError(f"The output instance {format_timestamp(t)} of {self.runner.owner} is being "
                                   f"written by {describe_holder(outcome.holder)}: call again later.")
            taken.append(lock)
        return taken

    def _attempts(self, claim: Claim, inputs: list[BatchInput], targets: tuple[Target, ...], keeper: LeaseKeeper,
                  before: int, result: BatchResult) -> BatchResult:
        runner, plan = self.runner, claim.plan
        # A job a killed run left running is followed, not submitted again: its staging is kept.
        follows = job_to_follow(self.log_records.attempts(plan.seq)) \
            if isinstance(runner.workflow, RemoteJobWorkflow) else None
        for output in targets:
            if isinstance(output, FileOutput):
                clear_leftovers(runner.fs, output,
                                keep=output.staging(follows.run_id, follows.attempt) if follows else None)
        budget = attempts_of(self.process.retry)
        for k in range(1, budget + 1):
            attempt = before + k
            keeper.ensure_held()
            started = _now()
            staged = (follows.run_id, follows.attempt) if follows else (runner.run_id, attempt)
            journal = AttemptJobs(follows, *staged, write=partial(self._write_running, plan, attempt, started, inputs))
            self._write(plan, inputs, AttemptFacts(attempt, Status.RUNNING, started, job=journal.recorded()))
            runner.log(f"process: {self.process.name} batch {plan.seq} attempt {attempt}: "
                       + (f"following the job {follows.id} of run {follows.run_id} (attempt {follows.attempt}) of "
                          if follows else "running ") + f"{runner.workflow.name} ({self.process.workflow.engine})")
            follows = None
            lineage, read = runner.attempt_lineage.start(
                result.time, attempt, f"batch-{plan.seq}", partial(batch_input_uses, runner.repo, runner.cluster,
                                                                   inputs), targets)
            began = time.perf_counter()
            try:
                published = runner.publishing.run_and_publish(
                    attempt, targets, partial(self._context, plan, attempt, inputs, targets), keeper, result,
                    staged=staged, journal=journal)
            except LockLostError:
                lineage.abort("the run lost its claim on the batch or a lock of its outputs to another run", read)
                raise
            except (WorkflowError, NothingWrittenError, StorageError, InputGoneError, QualityBlocked) as err:
                if not journal.left_running:  # else the job may still write it: the next attempt follows it
                    runner.publishing.discard(targets, attempt, staged)
                status = err.status if isinstance(err, WorkflowError) else Status.FAILED
                self._write(plan, inputs, AttemptFacts(attempt, status, started, _now(), error=str(err),
                                                       quality=result.quality, job=journal.recorded()))
                runner.log(f"process: attempt {attempt} failed: {err}")
                lineage.fail(str(err), read, runner.checks.checked_uses(targets, runner.cluster, result.quality))
                result.reason, result.attempts = str(err), k
                if isinstance(err, InputGoneError):
                    break  # no retry brings the instance back
                if k < budget:
                    runner.notices.notify(result.time, ATTEMPT_FAILED, Status.FAILED, attempt, str(err), batch=plan.seq)
                    runner.sleep_before_retry(k)
                follows = job_to_follow(self.log_records.attempts(plan.seq)) \
                    if isinstance(runner.workflow, RemoteJobWorkflow) else None
                continue
            except BaseException as err:  # a configuration error, or a bug: recorded, then raised (no retry)
                if not journal.left_running:  # else the job may still write it: the next attempt follows it
                    runner.publishing.discard(targets, attempt, staged)
                reason = str(err) if isinstance(err, ToolkitError) else f"{type(err).__name__}: {err}"
                self._write(plan, inputs, AttemptFacts(attempt, Status.FAILED, started, _now(), error=reason,
                                                       quality=result.quality, job=journal.recorded()))
                lineage.fail(reason, read)
                runner.notices.notify(result.time, FAILED, Status.FAILED, attempt, reason, batch=plan.seq)
                raise
            self._write(plan, inputs, AttemptFacts(attempt, Status.SUCCEEDED, started, _now(), outputs=published,
                                                   workflow_seconds=time.perf_counter() - began,
                                                   quality=result.quality, job=journal.recorded()))
            fingerprints = runner.publishing.record_events(published, runner.run_id)
            self.queue.commit(claim)
            runner.attempt_lineage.complete(lineage, read, published, fingerprints, quality=result.quality)
            runner.notices.warn_quality(result.time, attempt, result.quality, batch=plan.seq)
            result.status, result.attempts, result.outputs, result.reason = Status.SUCCEEDED, k, published, None
            runner.notices.notify(result.time, SUCCEEDED, Status.SUCCEEDED, attempt, batch=plan.seq)
            return result
        result.status = Status.FAILED
        result.reason = (f"batch {plan.seq} of {runner.owner} failed after {result.attempts} attempt(s), it stays "
                         f"pending and the next run replays it: {result.reason}")
        runner.notices.notify(result.time, FAILED, Status.FAILED, before + result.attempts, result.reason,
                              batch=plan.seq)
        return result

    def _evicted_since(self, feed: str, event: DatasetEvent) -> bool:
        """Whether the instance's newest event is an eviction recorded after `event`."""
        events = self.runner.ledger.events(feed, record_time(event.time))
        return bool(events) and events[-1].kind == EVICTED and events[-1].event_id > event.event_id

    def _context(self, plan: Plan, attempt: int, inputs: list[BatchInput], targets: tuple[Target, ...],
                 staged: dict[str, str | TableOutput]) -> WorkflowContext:
        """The workflow's context: each input's instances (checked available now), the batch, the outputs' staging
        places and their instances as published before."""
        runner = self.runner
        given: dict[str, tuple[str, ...] | TableInput] = {}
        listed: dict[str, tuple[BatchInstance, ...]] = {}
        for item in inputs:
            feed = runner.repo.feed(item.feed)
            where = feed_locations(feed, runner.cluster)
            found = []
            for event in item.events:
                state = probe_instance(runner.fs, where, feed.availability_flag, runner.catalog,
                                       record_time(event.time))
                if state.available:
                    found.append((state, event))
                elif not self._evicted_since(feed.name, event):
                    raise InputGoneError(
                        f"The instance {event.time} of feed '{feed.name}' ({state.location}), input '{item.name}' of "
                        f"batch {plan.seq} of {runner.owner}, is not available and no eviction of it is recorded "
                        f"since its event {event.event_id}: it was removed by hand; restore it and the batch runs "
                        "(it stays pending until then).")
                # else: evicted by retention since its event (the consumer was late): nothing left to read of it
            states = [state for state, _ in found]
            listed[item.name] = tuple(BatchInstance(state.time, event.event_id, state.location)
                                      for state, event in found)
            if where.is_table:
                assert where.table is not None
                given[item.name] = TableInput(where.table.database, where.table.table,
                                              tuple(s.partition or {} for s in states))
            else:
                given[item.name] = tuple(s.location for s in states)
        newest = max(t for item in inputs for t in item.times)
        batch = BatchContext(plan.seq, tuple(sorted(plan.event_ids)), listed,
                             {target.name: self._published(target) for target in targets})
        return WorkflowContext(self.process.name, runner.cluster.name, newest, runner.run_id, attempt, given, staged,
                               runner.publishing.properties(newest, given, staged), batch)

    def _published(self, target: Target) -> str | TableOutput | None:
        """The output instance as published now (which this run's replaces), or None."""
        runner = self.runner
        where = feed_locations(target.feed, runner.cluster)
        state = probe_instance(runner.fs, where, target.feed.availability_flag, runner.catalog, target.time)
        if not state.available:
            return None
        if isinstance(target, TableOutputTarget):
            return TableOutput(target.database, target.table, dict(target.partition))
        return target.path

    # Records

    def _write(self, plan: Plan, inputs: list[BatchInput], facts: AttemptFacts) -> None:
        """The attempt's record of the batch `plan`: the events and inputs it consumes and what `facts` say."""
        self.log_records.write(BatchRecord(
            process=self.process.name, cluster=self.runner.cluster.name, seq=plan.seq, attempt=facts.attempt,
            run_id=self.runner.run_id, status=facts.status, started=facts.started_stamp, ended=facts.ended_stamp,
            error=facts.error, events=sorted(plan.event_ids),
            inputs=Written(ReadInput, [{"name": item.name, "feed": item.feed,
                                        "instances": [{"time": e.time, "event_id": e.event_id, "location": e.location}
                                                      for e in item.events]} for item in inputs]),
            outputs=facts.outputs_written(), counters=facts.counters(), quality=facts.quality_written(), job=facts.job,
            definition=self.runner.provenance))

    def _write_running(self, plan: Plan, attempt: int, started: datetime, inputs: list[BatchInput],
                       job: AttemptJob) -> None:
        """The running attempt's record with its job's id, written before the job starts."""
        self._write(plan, inputs, AttemptFacts(attempt, Status.RUNNING, started, job=job))

    def _record_killed(self, seq: int, lease: Lease) -> None:
        """A run that held the plan died (its lease expired): its open attempt becomes KILLED."""
        for record in self.log_records.attempts(seq):
            if record.run_id == lease.run_id and record.status == Status.RUNNING:
                self.log_records.write(replace(record, status=Status.KILLED, ended=wall_clock_stamp(lease.expires),
                                               error=f"the run {lease.run_id} on {lease.holder} stopped renewing "
                                                     f"its claim; taken over by run {self.runner.run_id}"))


def _plan_newest(plan: Plan) -> datetime:
    return max(record_time(event.time) for event in plan.events)


def _now() -> datetime:
    return datetime.now(timezone.utc)
