"""One process instance, step by step, as Falcon and Oozie ran it, in a single call:

1. the time must be an instance (exit 2 off the grid, 4 outside validity); 2. safemode (5), the process
suspended or the instance held (`toolkit suspend --time`: 4, also seen at each poll of a wait and before the
first attempt), before anything is touched; 3. the instance's lease lock and one of the process's `parallel`
slots (5 while a live run holds them; a killed run's expired lock is taken over and its attempt recorded
KILLED); an instance that SUCCEEDED is skipped (4) unless forced; 4. the inputs resolved and, while required
ones are missing, waited for until the process timeout (3 when not waiting or `max_wait` is spent; TIMEDOUT
past the timeout, when waiting: a --no-wait call records no terminal state); 5. the workflow run with its
context; 6. the outputs published atomically, all or none, each step right after a check of the lease
(toolkit/core/storage/publish.py); 7. failed attempts retried by the process's policy; 8. every step recorded in the
ledger, and what each attempt wrote to stderr kept beside its record (stderr_capture.py). Sentences for
people go to stderr (`say`), the status line alone to stdout.

Timeouts, waits and retry pauses go through `clock` (tests and reruns pass their own); only the start and
end instants written into records are read from the real clock.

This module holds the steps' order: the instance's lease (through `process_lifecycle`), its slot, its attempts and
their retries. Each other job is a part the runner builds once: the wait for the inputs (`input_wait.py`), the
workflow run and its outputs published (`publishing.py`), the instance's and attempts' records
(`instance_records.py`), the notices (`process_notices.py`) and each attempt's lineage (`attempt_lineage.py`); a
batch consumer's run (`batch_runner.py`) uses the publishing, the notices and the lineage, and writes its own
records. The parts are built from the runner's settings when it is made: give a runner its lineage, log and options
then (its `RunContext`, `log=`, `options=`), not by setting them on it afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from toolkit.actions.process_runner.attempt_facts import AttemptFacts, InstanceFacts
from toolkit.actions.process_runner.attempt_lineage import AttemptLineage
from toolkit.actions.process_runner.followed_jobs import AttemptJobs, FollowedJob, job_to_follow
from toolkit.actions.process_runner.input_wait import InputWait
from toolkit.actions.process_runner.instance_checks import kill_requested, pause_before_retry, require_not_held
from toolkit.actions.process_runner.instance_records import InstanceRecords, real_now
from toolkit.actions.process_runner.lineage_uses import (
    input_uses,
)
from toolkit.actions.process_runner.process_notices import ProcessNotices
from toolkit.actions.process_runner.publishing import Publishing
from toolkit.actions.process_runner.quality_checks import OutputChecks
from toolkit.actions.process_runner.retry_policy import (
    attempts_of,
)
from toolkit.actions.process_runner.run_results import InstanceResult, RunOptions
from toolkit.actions.process_runner.sentences import BRIEF, masking, say
from toolkit.actions.process_runner.stderr_capture import captured_stderr
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.provenance import provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_in_validity, require_on_cluster
from toolkit.core.instances.plan import InstancePlan, plan_instance
from toolkit.core.ledger.attempt_logs import CappedLog
from toolkit.core.ledger.kill_requests import RunKilledError
from toolkit.core.ledger.locks import LeaseDetails, LeaseKeeper, LockLostError
from toolkit.core.ledger.records import (
    InstanceRecord,
    parse_wall_clock_stamp,
)
from toolkit.core.ledger.switches import require_running_allowed
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.java_errors import one_line
from toolkit.errors import BlockedError, SkippedError, ToolkitError
from toolkit.extensions.workflow_engines.preparation import (
    PreparedWorkflow,
    RemoteJobWorkflow,
    WorkflowRequest,
    preparer_of,
)
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.extensions.workflow_engines.spark_submission import terminate_children
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError
from toolkit.services.notifications.message import (
    ATTEMPT_FAILED,
    FAILED,
    SUCCEEDED,
)
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.openlineage.run import RunLineage
from toolkit.services.quality.gate import QualityBlocked
from toolkit.services.runtime.lifecycle import ProcessCall, process_lifecycle
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.staged_outputs.file_outputs import (
    NothingWrittenError,
    clear_leftovers,
)
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class _Tried:
    """One attempt under way, as ending it must undo and record it: the instance, its plan, when it started, whose
    staging it writes, the job it follows or started, its lineage run and the inputs that run names."""

    t: datetime
    attempt: int
    plan: InstancePlan
    started: datetime
    staged: tuple[str, int]
    journal: AttemptJobs
    lineage: RunLineage
    inputs: list[DatasetUse]


class ProcessRunner:
    """Runs instances of one process on one cluster, through `context`'s file system, run id, lineage, lease
    length and clock (which measures the waits and timeouts, and moves with a rerun's `--now`; not its catalog or
    notifier: `catalog` here is opened only when a table feed is read, and the runner's own notifier tells the
    process's `notification`). `spark` runs the workflow."""

    def __init__(self, repo: ConfigRepo, process: str, cluster: str, context: RunContext, *,
                 spark: SparkSession | None, catalog: Callable[[], Catalog], options: RunOptions | None = None,
                 log: Callable[[str], None] = say) -> None:
        self.repo, self.fs, self.lineage, self.run_id = repo, context.fs, context.lineage, context.run_id
        self.run_context = context
        self.process: Process = repo.process(process)
        self.cluster: Cluster = repo.cluster(cluster)
        require_on_cluster(self.process, self.cluster.name)
        self.ledger = context.ledger(self.cluster)
        self.spark, self.catalog, self.clock = spark, catalog, context.clock
        self.options, self.log = options or RunOptions(), masking(log)
        self.notifier = Notifier(self.fs, self.cluster)
        self.zone = resolve_zone(self.process.timezone)
        self.owner = f"process '{self.process.name}'"
        engine = engine_of(self.process)
        # Found before any lock or record: a missing workflow file or application is exit 2.
        self.workflow: PreparedWorkflow | RemoteJobWorkflow = preparer_of(engine)(WorkflowRequest(
            repo_root=Path(repo.root), process=self.process, cluster=self.cluster, fs=self.fs, spark=spark,
            path=self.options.workflow_path or self.process.workflow.path, owner=self.owner, clock=self.clock))
        self.checks = OutputChecks(repo, self.process, self.fs, catalog, log)
        self.provenance = provenance(self.process, Path(repo.root), repo.revision)  # what its records say it ran
        # Its parts, each with one job: the records it writes, what it tells people, the lineage of its attempts,
        # the workflow run and its outputs published, the wait for the inputs.
        self.records = InstanceRecords(self.ledger, self.process.name, self.cluster.name, self.run_id,
                                       kind=self.options.kind, definition=self.provenance)
        self.notices = ProcessNotices(self.notifier, repo, self.process, self.cluster, self.run_id, self.log)
        self.attempt_lineage = AttemptLineage(self.lineage, repo, self.process, self.cluster, sql=self.workflow.sql,
                                              definition=self.provenance, checks=self.checks)
        self.publishing = Publishing(repo, self.process, self.cluster, self.fs, spark=spark, catalog=catalog,
                                     ledger=self.ledger, workflow=self.workflow, checks=self.checks,
                                     run_id=self.run_id, definition=self.provenance, zone=self.zone, log=self.log)
        self.input_wait = InputWait(self.process, self.zone, self.clock, self.options, ledger=self.ledger,
                                    records=self.records, notices=self.notices, plan=self.plan,
                                    check_hold=self.check_hold, pause_before_retry=self.sleep_before_retry,
                                    log=self.log)

    # Step 1 and 2: is there anything to do at all

    def check_time(self, t: datetime) -> None:
        require_in_validity(self.process, self.cluster.name, t)

    def check_switches(self) -> None:
        require_running_allowed(self.fs, self.cluster, "process", self.process.name)

    def check_hold(self, t: datetime) -> None:
        """SkippedError (exit 4) when the instance is held (`toolkit suspend --time`): it does not start."""
        require_not_held(self.ledger, self.process, self.cluster.name, t)

    def _held(self, t: datetime) -> str | None:
        """Why the instance is held now, or None: what a followed Oozie job is suspended for."""
        hold = self.ledger.hold(self.process.name, t)
        return hold.sentence() if hold is not None else None

    def plan(self, t: datetime) -> InstancePlan:
        return plan_instance(self.repo, self.process, self.cluster, t, self.fs, self.catalog)

    # Step 3 to 8

    def run(self, t: datetime) -> InstanceResult:
        call = ProcessCall(self.repo, self.process, self.cluster, t, self.provenance)  # inside the validity
        at = call.instance
        # A failure no attempt ends with (the ledger unwritable, the lease lost) is told as FAILED; a killed run's
        # lease, taken over once expired, is recorded KILLED first (services/runtime/lifecycle.py).
        with process_lifecycle(call, self.run_context,
                               tell=lambda error, timed_out: self.notices.failed_outside_attempts(t, error, timed_out),
                               before_lease=lambda: self.check_hold(t), stop_when=lambda: self._kill_requested(t),
                               on_stop=self._cancel_work) as held:
            if held.previous is not None:
                self.records.killed(t, held.previous)
            record = self.ledger.instance(self.process.name, t)
            if record is not None and record.status == Status.SUCCEEDED and not self._forced(record) \
                    and self.options.kind == "RUN":
                if record.run_id is not None:
                    self.publishing.record_events(record.published(), record.run_id, missing_only=True)
                return InstanceResult(t, Status.SKIPPED, f"the instance {at} of {self.owner} succeeded already "
                                      f"(run {record.run_id}"
                                      + (f", started {record.started}" if self.options.force_if_started_before
                                         else "") + "); give --force to run it again",
                                      record=self.ledger.layout.instance_record(self.process.name, t))
            self.ledger.clear_kill_request(self.process.name, t)  # one left for an earlier run is stale
            return self._run_locked(t, record, held.keeper)

    def _forced(self, record: InstanceRecord) -> bool:
        """Whether this call runs a succeeded instance again: --force, or its last attempt started before the
        instant of --force-if-started-before (records are to the second)."""
        before = self.options.force_if_started_before
        if self.options.force or before is None:
            return self.options.force
        return record.started is None or parse_wall_clock_stamp(record.started) < before.replace(microsecond=0)

    def _run_locked(self, t: datetime, record: InstanceRecord | None, keeper: LeaseKeeper) -> InstanceResult:
        result = InstanceResult(t, Status.RUNNING, record=self.ledger.layout.instance_record(self.process.name, t))
        plan, first = self.input_wait.until_ready(t, record, result, keeper)
        if plan is None:
            return result
        before = record.attempts if record is not None else 0  # this run's attempts are counted from here
        slot, holders = self.ledger.take_slot(self.process.name, self.process.parallel, self.run_id,
                                              LeaseDetails(time=format_timestamp(t)))
        if slot is None:
            running = ", ".join(h.details.time or h.run_id for h in holders)
            raise BlockedError(f"The {self.owner} already runs {self.process.parallel} instance(s) (its "
                               f"`parallel`): {running}; call again later.")
        attempt = first
        try:
            self._announce_start(t, attempt)  # held while it waited for its inputs or a slot: it does not start
            with LeaseKeeper([slot], self.ledger.lease_seconds / 3):  # a lost slot costs nothing: only counted
                # A job a killed run left running is followed, not submitted again: its staging is kept.
                follows = job_to_follow(self.ledger.attempts(self.process.name, t)) \
                    if isinstance(self.workflow, RemoteJobWorkflow) else None
                for output in plan.file_outputs:
                    clear_leftovers(self.fs, output,
                                    keep=output.staging(follows.run_id, follows.attempt) if follows else None)
                budget = attempts_of(self.process.retry)
                while attempt - first < budget:
                    keeper.ensure_held()  # killed or lost in a retry's pause: before the attempt is counted
                    attempt += 1
                    outcome = self._attempt(t, attempt, plan, keeper, result, follows)
                    follows = job_to_follow(self.ledger.attempts(self.process.name, t)) \
                        if outcome is not None and isinstance(self.workflow, RemoteJobWorkflow) else None
                    if outcome is None:
                        result.status, result.attempts = Status.SUCCEEDED, attempt - before
                        self.notices.notify(t, SUCCEEDED, Status.SUCCEEDED, attempt)
                        return result
                    result.reason = outcome
                    if attempt - first < budget:
                        self.notices.notify(t, ATTEMPT_FAILED, Status.FAILED, attempt, outcome)
                        self.sleep_before_retry(attempt - first)
                self.records.instance(t, InstanceFacts(Status.FAILED, attempt, ended=real_now(), error=result.reason))
                result.status, result.attempts = Status.FAILED, attempt - before
                self.notices.notify(t, FAILED, Status.FAILED, attempt, result.reason)
                return result
        except RunKilledError as err:
            self.records.instance(t, InstanceFacts(Status.KILLED, attempt, ended=real_now(), error=str(err)))
            self.ledger.clear_kill_request(self.process.name, t)
            self.log(f"process: {self.process.name} {format_timestamp(t)}: {err}")
            result.status, result.attempts, result.reason = Status.KILLED, attempt - before, str(err)
            return result
        finally:
            slot.release()

    def _announce_start(self, t: datetime, attempts: int) -> None:
        """Record the instance RUNNING, then look for a hold. `toolkit suspend` writes its hold, then looks for a
        running instance (toolkit/cli/commands/instance_holds.py): whichever comes second sees the other, so a hold
        is never set on a Spark run that goes on. Held: the record goes back to what it was (WAITING when there was
        none) and the attempt does not start (SkippedError, exit 4)."""
        previous = self.ledger.instance(self.process.name, t)
        self.records.instance(t, InstanceFacts(Status.RUNNING, attempts, started=real_now()))
        try:
            self.check_hold(t)
        except SkippedError:
            if previous is not None:
                self.ledger.write_instance(previous)
            else:
                self.records.instance(t, InstanceFacts(Status.WAITING, attempts))
            raise

    def _attempt(self, t: datetime, attempt: int, plan: InstancePlan, keeper: LeaseKeeper,
                 result: InstanceResult, follows: FollowedJob | None = None) -> str | None:
        """One try (`_try`), what it writes to stderr kept beside its record once it ends, however it ends."""
        with captured_stderr() as log:
            try:
                return self._try(t, attempt, plan, keeper, result, follows)
            finally:
                self._keep_log(t, attempt, log)

    def _keep_log(self, t: datetime, attempt: int, log: CappedLog) -> None:
        try:
            self.ledger.write_attempt_log(self.process.name, t, attempt, log)
        except (ToolkitError, OSError) as err:  # the attempt's own outcome matters more than its log
            self.log(f"process: the stderr of attempt {attempt} was not kept in the ledger: "
                     f"{one_line(str(err), BRIEF)}")

    def _try(self, t: datetime, attempt: int, plan: InstancePlan, keeper: LeaseKeeper,
             result: InstanceResult, follows: FollowedJob | None = None) -> str | None:
        """One try: run, publish, record. None on success, else the error (nothing published). `follows`: the job
        a killed run left running, which this try follows (and whose staging it publishes) instead of submitting."""
        keeper.ensure_held()
        started = real_now()
        self.records.attempt(t, plan, AttemptFacts(attempt, Status.RUNNING, started,
                                                  job=follows.recorded() if follows else None))
        self.records.instance(t, InstanceFacts(Status.RUNNING, attempt, started=started))
        self.log(f"process: {self.process.name} {format_timestamp(t)} attempt {attempt}: "
                 + (f"following the job {follows.id} of run {follows.run_id} (attempt {follows.attempt}) of "
                    if follows else "running ") + f"{self.workflow.name} ({self.process.workflow.engine})")
        staged = (follows.run_id, follows.attempt) if follows else (self.run_id, attempt)
        journal = AttemptJobs(follows, *staged, write=lambda job: self.records.attempt(
            t, plan, AttemptFacts(attempt, Status.RUNNING, started, job=job)), held=lambda: self._held(t))
        lineage, inputs = self.attempt_lineage.start(t, attempt, format_timestamp(t),
                                                     lambda: input_uses(plan, self.cluster), plan.outputs)
        tried = _Tried(t, attempt, plan, started, staged, journal, lineage, inputs)
        began = time.perf_counter()
        try:
            published = self.publishing.run_and_publish(
                attempt, plan.outputs, lambda outputs: self.publishing.context(t, attempt, plan, outputs), keeper,
                result, staged=staged, journal=journal)
        except RunKilledError as err:
            self._killed(tried, str(err))
        except LockLostError:
            lineage.abort("the run lost its lock on the instance to another run", inputs)
            raise
        except (WorkflowError, NothingWrittenError, StorageError, QualityBlocked) as err:
            if keeper.killed.is_set():  # the work failed because the kill cancelled it
                self._killed(tried, f"The run was {keeper.killed_reason}; it publishes nothing.")
            if not journal.left_running:  # else the job may still write it: the next attempt follows it
                self.publishing.discard(plan.outputs, attempt, staged)
            status = err.status if isinstance(err, WorkflowError) else Status.FAILED
            self.records.attempt(t, plan, AttemptFacts(attempt, status, started, real_now(), error=str(err),
                                                      quality=result.quality, job=journal.recorded()))
            self.log(f"process: attempt {attempt} failed: {one_line(str(err), BRIEF)} (the whole error is in "
                     f"{self.ledger.layout.attempt_record(self.process.name, t, attempt)})")
            lineage.fail(str(err), inputs, self.checks.checked_uses(plan.outputs, self.cluster, result.quality))
            return str(err)
        except BaseException as err:  # a configuration error, or a bug: recorded, then raised (no retry)
            if keeper.killed.is_set() and isinstance(err, Exception):  # what the kill's cancel made fail
                self._killed(tried, f"The run was {keeper.killed_reason}; it publishes nothing.")
            if not journal.left_running:  # else the job may still write it: the next attempt follows it
                self.publishing.discard(plan.outputs, attempt, staged)
            reason = str(err) if isinstance(err, ToolkitError) else f"{type(err).__name__}: {err}"
            self.records.attempt(t, plan, AttemptFacts(attempt, Status.FAILED, started, real_now(), error=reason,
                                                      quality=result.quality, job=journal.recorded()))
            self.records.instance(t, InstanceFacts(Status.FAILED, attempt, ended=real_now(), error=reason))
            lineage.fail(reason, inputs)
            self.notices.notify(t, FAILED, Status.FAILED, attempt, reason)
            raise
        ended = real_now()
        result.outputs = published
        self.records.attempt(t, plan, AttemptFacts(attempt, Status.SUCCEEDED, started, ended, outputs=published,
                                                  workflow_seconds=time.perf_counter() - began,
                                                  quality=result.quality, job=journal.recorded()))
        self.records.instance(t, InstanceFacts(Status.SUCCEEDED, attempt, started=started, ended=ended,
                                              outputs=published), plan=plan)
        self.attempt_lineage.complete(lineage, inputs, published,
                                      self.publishing.record_events(published, self.run_id), plan, result.quality)
        self.notices.warn_quality(t, attempt, result.quality)
        return None

    def _killed(self, tried: _Tried, reason: str) -> NoReturn:
        """The attempt ends KILLED (`toolkit kill`): its staging discarded (unless a job it could not stop may
        still write it), nothing published, no retry."""
        if not tried.journal.left_running:
            self.publishing.discard(tried.plan.outputs, tried.attempt, tried.staged)
        self.records.attempt(tried.t, tried.plan, AttemptFacts(tried.attempt, Status.KILLED, tried.started,
                                                              real_now(), error=reason, job=tried.journal.recorded()))
        tried.lineage.fail(reason, tried.inputs)
        raise RunKilledError(reason)

    def _kill_requested(self, t: datetime) -> str | None:
        """Why this run must end (`toolkit kill` named it), or None."""
        return kill_requested(self.ledger, self.process, t, self.run_id)

    def _cancel_work(self) -> None:
        """Stop what the attempt runs: its Spark jobs in this session, and an `engine: spark` application."""
        terminate_children()
        if self.spark is not None:
            self.spark.sparkContext.cancelAllJobs()

    def sleep_before_retry(self, failed_attempts: int) -> None:
        pause_before_retry(self.process, self.clock, self.zone, self.options.max_retry_delay, self.log,
                           failed_attempts)
