"""One process instance, step by step, as Falcon and Oozie ran it, in a single call:

1. the time must be an instance (exit 2 off the grid, 4 outside validity); 2. safemode (5), the process
suspended or the instance held (`toolkit suspend --time`: 4, also seen at each poll of a wait and before the
first attempt), before anything is touched; 3. the instance's lease lock and one of the process's `parallel`
slots (5 while a live run holds them; a killed run's expired lock is taken over and its attempt recorded
KILLED); an instance that SUCCEEDED is skipped (4) unless forced; 4. the inputs resolved and, while required
ones are missing, waited for until the process timeout (3 when not waiting or `max_wait` is spent; TIMEDOUT
past the timeout, when waiting: a --no-wait call records no terminal state); 5. the workflow run with its
context; 6. the outputs published atomically, all or none, each step right after a check of the lease
(storage/publish.py); 7. failed attempts retried by the process's policy; 8. every step recorded in the
ledger, and what each attempt wrote to stderr kept beside its record (stderr_capture.py). Sentences for
people go to stderr (`say`), the status line alone to stdout.

Timeouts, waits and retry pauses go through `clock` (tests and reruns pass their own); only the start and
end instants written into records are read from the real clock.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from toolkit.actions.process_runner.attempt_facts import AttemptFacts, InstanceFacts
from toolkit.actions.process_runner.followed_jobs import AttemptJobs, FollowedJob, job_to_follow
from toolkit.actions.process_runner.lineage_uses import (
    input_uses,
    planned_output_uses,
    published_output_uses,
    sql_columns,
)
from toolkit.actions.process_runner.quality_checks import OutputChecks
from toolkit.actions.process_runner.retry_policy import (
    attempts_of,
    deadline_of,
    retry_delay_seconds,
    seconds_until,
)
from toolkit.actions.process_runner.stderr_capture import captured_stderr
from toolkit.clock import Clock
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.provenance import provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.instances.grids import process_grid, require_in_validity, require_on_cluster
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget
from toolkit.core.instances.plan import InstancePlan, plan_instance
from toolkit.core.ledger.attempt_logs import CappedLog
from toolkit.core.ledger.kill_requests import RunKilledError
from toolkit.core.ledger.locks import Lease, LeaseKeeper, LockLostError
from toolkit.core.ledger.records import (
    AttemptRecord,
    InstanceRecord,
    PublicationFacts,
    PublishedOutput,
    parse_wall_clock_stamp,
    wall_clock_stamp,
)
from toolkit.core.ledger.switches import require_running_allowed
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.java_errors import one_line
from toolkit.core.storage.publish import Publication
from toolkit.errors import BlockedError, SkippedError, ToolkitError
from toolkit.extensions.workflow_engines.context import (
    TableInput,
    TableOutput,
    WorkflowContext,
    evaluate_properties,
    falcon_properties,
    workflow_inputs,
)
from toolkit.extensions.workflow_engines.preparation import (
    JobJournal,
    PreparedWorkflow,
    RemoteJobWorkflow,
    WorkflowRequest,
    preparer_of,
)
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.extensions.workflow_engines.spark_submission import terminate_children
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError
from toolkit.secrets_masking import masked
from toolkit.services.notifications.message import (
    ATTEMPT_FAILED,
    FAILED,
    QUALITY_WARNING,
    SUCCEEDED,
    TIMEDOUT,
    Notice,
    rerun_command,
)
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.openlineage.run import RunLineage
from toolkit.services.quality.gate import QualityBlocked, require_passing, warnings_of
from toolkit.services.quality.results import GateResult, summary
from toolkit.services.runtime.lifecycle import ProcessCall, process_lifecycle
from toolkit.services.runtime.polling import FIRST_POLL_SECONDS, LONGEST_POLL_SECONDS, poll_intervals
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.staged_outputs import table_outputs as tables
from toolkit.services.staged_outputs.file_outputs import (
    NothingWrittenError,
    clear_leftovers,
    discard,
    missing_staging,
    publish,
)
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


BRIEF = 500  # the most characters of an error a sentence on stderr quotes; the ledger keeps the whole


def say(line: str) -> None:
    """A sentence for people: on stderr, apart from the status line on stdout."""
    print(line, file=sys.stderr, flush=True)


def _masking(log: Callable[[str], None]) -> Callable[[str], None]:
    """`log`, each sentence masked first (an error it quotes can hold a password: secrets_masking.py)."""
    return lambda line: log(masked(line))


@dataclass(frozen=True)
class RunOptions:
    force: bool = False
    # Run a succeeded instance again only when its last attempt started before this instant (the data-trigger
    # sweep gives the newest input event's publication: a second start for the same event then does nothing).
    force_if_started_before: datetime | None = None
    wait: bool = True
    max_wait: float | None = None  # seconds a waiting call polls before it exits 3
    max_retry_delay: float | None = None  # caps each wait between attempts (a rerun by hand, a test)
    kind: str = "RUN"  # or LATE_RERUN
    workflow_path: str | None = None  # a late input's own workflow


@dataclass
class InstanceResult:
    time: datetime
    status: Status  # SUCCEEDED FAILED TIMEDOUT WAITING SKIPPED BLOCKED
    reason: str | None = None
    attempts: int = 0
    missing: list[str] = field(default_factory=list)
    outputs: list[PublishedOutput] = field(default_factory=list)
    record: str | None = None
    wait_seconds: float = 0.0
    workflow_seconds: float = 0.0
    resolve_seconds: float = 0.0  # the last resolution of inputs and outputs against storage
    quality: list[GateResult] = field(default_factory=list)  # the last attempt's data-quality gates

    def counters(self) -> dict[str, object]:
        checked = summary(self.quality)
        return {"attempts": self.attempts, **({"quality": checked} if checked else {}),
                "files_written": sum(o.files for o in self.outputs),
                "bytes_written": sum(o.bytes for o in self.outputs),
                "wait_seconds": round(self.wait_seconds, 3), "workflow_seconds": round(self.workflow_seconds, 3),
                "resolve_seconds": round(self.resolve_seconds, 3)}


class ProcessRunner:
    """Runs instances of one process on one cluster, through `context`'s file system, run id, lineage and lease
    length (not its catalog, clock or notifier: `catalog` here is opened only when a table feed is read, `clock`
    measures the waits and timeouts, and the runner's own notifier tells the process's `notification`). `spark`
    runs the workflow."""

    def __init__(self, repo: ConfigRepo, process: str, cluster: str, context: RunContext, *,
                 spark: SparkSession | None, catalog: Callable[[], Catalog], clock: Clock,
                 options: RunOptions | None = None, log: Callable[[str], None] = say) -> None:
        self.repo, self.fs, self.lineage, self.run_id = repo, context.fs, context.lineage, context.run_id
        self.run_context = context
        self.process: Process = repo.process(process)
        self.cluster: Cluster = repo.cluster(cluster)
        require_on_cluster(self.process, self.cluster.name)
        self.ledger = context.ledger(self.cluster)
        self.spark, self.catalog, self.clock = spark, catalog, clock
        self.options, self.log = options or RunOptions(), _masking(log)
        self.notifier = Notifier(self.fs, self.cluster)
        self.zone = resolve_zone(self.process.timezone)
        self.owner = f"process '{self.process.name}'"
        engine = engine_of(self.process)
        # Found before any lock or record: a missing workflow file or application is exit 2.
        self.workflow: PreparedWorkflow | RemoteJobWorkflow = preparer_of(engine)(WorkflowRequest(
            repo_root=Path(repo.root), process=self.process, cluster=self.cluster, fs=self.fs, spark=spark,
            path=self.options.workflow_path or self.process.workflow.path, owner=self.owner, clock=clock))
        self.checks = OutputChecks(repo, self.process, self.fs, catalog, log)
        self.provenance = provenance(self.process, Path(repo.root), repo.revision)  # what its records say it ran
        self._concluded: set[datetime] = set()  # instances whose outcome this runner told (notify)

    # Step 1 and 2: is there anything to do at all

    def check_time(self, t: datetime) -> None:
        require_in_validity(self.process, self.cluster.name, t)

    def check_switches(self) -> None:
        require_running_allowed(self.fs, self.cluster, "process", self.process.name)

    def check_hold(self, t: datetime) -> None:
        """SkippedError (exit 4) when the instance is held (`toolkit suspend --time`): it does not start."""
        hold = self.ledger.hold(self.process.name, t)
        if hold is not None:
            at = format_timestamp(t)
            raise SkippedError(f"The instance {at} of {self.owner} on cluster '{self.cluster.name}' is suspended "
                               f"({hold.sentence()}): it does not start until `toolkit resume --process "
                               f"{self.process.name} --cluster {self.cluster.name} --time {at}`.")

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
        # lease, taken over once expired, is recorded KILLED first (runtime/lifecycle.py).
        with process_lifecycle(call, self.run_context,
                               tell=lambda error, timed_out: self._tell_failed(t, error, timed_out),
                               before_lease=lambda: self.check_hold(t), stop_when=lambda: self._kill_requested(t),
                               on_stop=self._cancel_work) as held:
            if held.previous is not None:
                self._record_killed(t, held.previous)
            record = self.ledger.instance(self.process.name, t)
            if record is not None and record.status == Status.SUCCEEDED and not self._forced(record) \
                    and self.options.kind == "RUN":
                if record.run_id is not None:
                    self.record_events(record.published(), record.run_id, missing_only=True)
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

    def _wait_for_inputs(self, t: datetime, record: InstanceRecord | None, result: InstanceResult,
                         keeper: LeaseKeeper) -> tuple[InstancePlan | None, int]:
        """The plan once every required input is there, or None when the run ends here (result says how); and
        the last attempt number used (timed-out waits retried by `onTimeout` are attempts)."""
        previous_attempts = record.attempts if record is not None else 0
        succeeded_before = record is not None and record.status == Status.SUCCEEDED
        deadline = deadline_of(self.process, t, self.zone)
        budget = attempts_of(self.process.retry)
        attempt = previous_attempts
        waited_since = self.clock.now()
        intervals = poll_intervals()
        told: list[str] | None = None  # what the log last said the run waits for
        while True:
            keeper.check_kill()
            if keeper.killed.is_set():  # `toolkit kill` of a run waiting for its inputs: it stops at its next poll
                reason = f"The run was {keeper.killed_reason}; it publishes nothing."
                self._write_instance(t, InstanceFacts(Status.KILLED, attempt, ended=_real_now(), error=reason))
                self.ledger.clear_kill_request(self.process.name, t)
                result.status, result.reason = Status.KILLED, reason
                return None, attempt
            self.check_hold(t)  # held while it waits: it stops at its next poll, its record still WAITING
            began = time.perf_counter()
            plan = self.plan(t)
            result.resolve_seconds = time.perf_counter() - began
            missing = plan.missing_required
            now = self.clock.now()
            result.wait_seconds = waited = (now - waited_since).total_seconds()
            if not missing:
                return plan, attempt
            result.missing = missing
            if succeeded_before:  # a forced or late rerun must not turn a success into a wait or a timeout
                result.status = Status.TIMEDOUT if now >= deadline else Status.WAITING
                result.reason = (f"the rerun of the succeeded instance {format_timestamp(t)} of {self.owner} is "
                                 f"missing {len(missing)} input instance(s): " + _listed(missing)
                                 + "; its record stays SUCCEEDED")
                return None, attempt
            if now >= deadline and not self.options.wait:
                # A call that does not wait judges nothing final: trying the tool on a past date is not a timeout.
                self._write_instance(t, InstanceFacts(Status.WAITING, attempt, missing=missing))
                result.status = Status.WAITING
                result.reason = (f"waiting for {len(missing)} input instance(s), and its timeout passed at "
                                 f"{format_timestamp(deadline)}: a --no-wait call records no timeout (give --now with "
                                 f"a time before {format_timestamp(deadline)} to try a past instance): "
                                 + _listed(missing))
                return None, attempt
            if now >= deadline:
                attempt += 1
                reason = _timed_out(self.owner, t, deadline, missing)
                self._write_attempt(t, plan, AttemptFacts(attempt, Status.TIMEDOUT, _real_now(), _real_now(),
                                                          error=reason))
                on_timeout = self.process.retry is not None and self.process.retry.on_timeout
                if on_timeout and attempt - previous_attempts < budget:
                    self.sleep_before_retry(attempt - previous_attempts)
                    continue
                self._write_instance(t, InstanceFacts(Status.TIMEDOUT, attempt, ended=_real_now(), error=reason,
                                                      missing=missing))
                result.status, result.reason, result.attempts = Status.TIMEDOUT, reason, attempt - previous_attempts
                self.notify(t, TIMEDOUT, Status.TIMEDOUT, attempt, reason)
                return None, attempt
            self._write_instance(t, InstanceFacts(Status.WAITING, attempt, missing=missing))
            if not self.options.wait or (self.options.max_wait is not None and waited >= self.options.max_wait):
                result.status = Status.WAITING
                result.reason = (f"waiting for {len(missing)} input instance(s) until {format_timestamp(deadline)}: "
                                 + _listed(missing))
                return None, attempt
            if missing != told:  # said once, and again when what it lacks changes: a waiting run's log is not mute
                self.log(f"process: {self.process.name} {format_timestamp(t)}: waiting for {len(missing)} input "
                         f"instance(s) until {format_timestamp(deadline)} (its timeout), checking every "
                         f"{FIRST_POLL_SECONDS:.0f} s to {LONGEST_POLL_SECONDS / 60:.0f} min: {_listed(missing)}")
                told = missing
            pause = min(next(intervals), seconds_until(now, deadline))
            if self.options.max_wait is not None:
                pause = min(pause, max(self.options.max_wait - waited, 0.0))
            self.clock.sleep(max(pause, 0.01))

    def _run_locked(self, t: datetime, record: InstanceRecord | None, keeper: LeaseKeeper) -> InstanceResult:
        result = InstanceResult(t, Status.RUNNING, record=self.ledger.layout.instance_record(self.process.name, t))
        plan, first = self._wait_for_inputs(t, record, result, keeper)
        if plan is None:
            return result
        before = record.attempts if record is not None else 0  # this run's attempts are counted from here
        slot, holders = self.ledger.take_slot(self.process.name, self.process.parallel, self.run_id,
                                              {"time": format_timestamp(t)})
        if slot is None:
            running = ", ".join(str(h.details.get("time", h.run_id)) for h in holders)
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
                        self.notify(t, SUCCEEDED, Status.SUCCEEDED, attempt)
                        return result
                    result.reason = outcome
                    if attempt - first < budget:
                        self.notify(t, ATTEMPT_FAILED, Status.FAILED, attempt, outcome)
                        self.sleep_before_retry(attempt - first)
                self._write_instance(t, InstanceFacts(Status.FAILED, attempt, ended=_real_now(), error=result.reason))
                result.status, result.attempts = Status.FAILED, attempt - before
                self.notify(t, FAILED, Status.FAILED, attempt, result.reason)
                return result
        except RunKilledError as err:
            self._write_instance(t, InstanceFacts(Status.KILLED, attempt, ended=_real_now(), error=str(err)))
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
        self._write_instance(t, InstanceFacts(Status.RUNNING, attempts, started=_real_now()))
        try:
            self.check_hold(t)
        except SkippedError:
            if previous is not None:
                self.ledger.write_instance(previous)
            else:
                self._write_instance(t, InstanceFacts(Status.WAITING, attempts))
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
        started = _real_now()
        self._write_attempt(t, plan, AttemptFacts(attempt, Status.RUNNING, started,
                                                  job=follows.to_json() if follows else None))
        self._write_instance(t, InstanceFacts(Status.RUNNING, attempt, started=started))
        self.log(f"process: {self.process.name} {format_timestamp(t)} attempt {attempt}: "
                 + (f"following the job {follows.id} of run {follows.run_id} (attempt {follows.attempt}) of "
                    if follows else "running ") + f"{self.workflow.name} ({self.process.workflow.engine})")
        staged = (follows.run_id, follows.attempt) if follows else (self.run_id, attempt)
        journal = AttemptJobs(follows, *staged, write=lambda job: self._write_attempt(
            t, plan, AttemptFacts(attempt, Status.RUNNING, started, job=job)), held=lambda: self._held(t))
        lineage, inputs = self.start_lineage(t, attempt, format_timestamp(t), lambda: input_uses(plan, self.cluster),
                                             plan.outputs)
        began = time.perf_counter()
        try:
            published = self.run_and_publish(
                attempt, plan.outputs, lambda outputs: self.context(t, attempt, plan, outputs), keeper, result,
                staged=staged, journal=journal)
        except RunKilledError as err:
            self._killed(t, attempt, plan, started, str(err), lineage, inputs, staged, journal)
        except LockLostError:
            lineage.abort("the run lost its lock on the instance to another run", inputs)
            raise
        except (WorkflowError, NothingWrittenError, StorageError, QualityBlocked) as err:
            if keeper.killed.is_set():  # the work failed because the kill cancelled it
                self._killed(t, attempt, plan, started, f"The run was {keeper.killed_reason}; it publishes nothing.",
                             lineage, inputs, staged, journal)
            if not journal.left_running:  # else the job may still write it: the next attempt follows it
                self.discard(plan.outputs, attempt, staged)
            status = err.status if isinstance(err, WorkflowError) else Status.FAILED
            self._write_attempt(t, plan, AttemptFacts(attempt, status, started, _real_now(), error=str(err),
                                                      quality=result.quality, job=journal.to_json()))
            self.log(f"process: attempt {attempt} failed: {one_line(str(err), BRIEF)} (the whole error is in "
                     f"{self.ledger.layout.attempt_record(self.process.name, t, attempt)})")
            lineage.fail(str(err), inputs, self.checks.checked_uses(plan.outputs, self.cluster, result.quality))
            return str(err)
        except BaseException as err:  # a configuration error, or a bug: recorded, then raised (no retry)
            if keeper.killed.is_set() and isinstance(err, Exception):  # what the kill's cancel made fail
                self._killed(t, attempt, plan, started, f"The run was {keeper.killed_reason}; it publishes nothing.",
                             lineage, inputs, staged, journal)
            if not journal.left_running:  # else the job may still write it: the next attempt follows it
                self.discard(plan.outputs, attempt, staged)
            reason = str(err) if isinstance(err, ToolkitError) else f"{type(err).__name__}: {err}"
            self._write_attempt(t, plan, AttemptFacts(attempt, Status.FAILED, started, _real_now(), error=reason,
                                                      quality=result.quality, job=journal.to_json()))
            self._write_instance(t, InstanceFacts(Status.FAILED, attempt, ended=_real_now(), error=reason))
            lineage.fail(reason, inputs)
            self.notify(t, FAILED, Status.FAILED, attempt, reason)
            raise
        ended = _real_now()
        result.outputs = published
        self._write_attempt(t, plan, AttemptFacts(attempt, Status.SUCCEEDED, started, ended, outputs=published,
                                                  workflow_seconds=time.perf_counter() - began,
                                                  quality=result.quality, job=journal.to_json()))
        self._write_instance(t, InstanceFacts(Status.SUCCEEDED, attempt, started=started, ended=ended,
                                              outputs=published), plan=plan)
        self.complete_lineage(lineage, inputs, published, self.record_events(published, self.run_id), plan,
                              result.quality)
        self.warn_quality(t, attempt, result.quality)
        return None

    def _killed(self, t: datetime, attempt: int, plan: InstancePlan, started: datetime, reason: str,
                lineage: RunLineage, inputs: list[DatasetUse], staged: tuple[str, int],
                journal: AttemptJobs) -> NoReturn:
        """The attempt ends KILLED (`toolkit kill`): its staging discarded (unless a job it could not stop may
        still write it), nothing published, no retry."""
        if not journal.left_running:
            self.discard(plan.outputs, attempt, staged)
        self._write_attempt(t, plan, AttemptFacts(attempt, Status.KILLED, started, _real_now(), error=reason,
                                                  job=journal.to_json()))
        lineage.fail(reason, inputs)
        raise RunKilledError(reason)

    def _kill_requested(self, t: datetime) -> str | None:
        """Why this run must end (`toolkit kill` named it), or None."""
        request = self.ledger.kill_request(self.process.name, t)
        return request.sentence() if request is not None and request.run_id == self.run_id else None

    def _cancel_work(self) -> None:
        """Stop what the attempt runs: its Spark jobs in this session, and an `engine: spark` application."""
        terminate_children()
        if self.spark is not None:
            self.spark.sparkContext.cancelAllJobs()

    def start_lineage(self, t: datetime, attempt: int, instance: str, inputs: Callable[[], list[DatasetUse]],
                      targets: Sequence[FileOutput | TableOutputTarget]) -> tuple[RunLineage, list[DatasetUse]]:
        """The lineage of one attempt, started with the `inputs` it reads (computed only when lineage is on) and
        the `targets` it writes: the run, and those inputs."""
        lineage = self.lineage_run(t, attempt, instance)
        if not self.lineage.enabled:
            return lineage, []
        read = inputs()
        lineage.start(read, planned_output_uses(targets, self.cluster))
        return lineage, read

    def complete_lineage(self, lineage: RunLineage, inputs: list[DatasetUse], published: list[PublishedOutput],
                         fingerprints: Mapping[tuple[str, str], Fingerprint | None],
                         plan: InstancePlan | None = None, quality: Sequence[GateResult] = ()) -> None:
        """COMPLETE with what was published and what its quality gates found; with the instance's `plan`, a SQL
        workflow's column lineage too."""
        if self.lineage.enabled:
            sql = self.workflow.sql
            columns = sql_columns(sql, plan, self.cluster) if plan is not None and sql is not None else None
            uses = published_output_uses(self.repo, self.cluster, published, fingerprints, columns)
            lineage.complete(inputs, self.checks.with_assertions(uses, quality))

    def lineage_run(self, t: datetime, attempt: int, instance: str) -> RunLineage:
        """The lineage of one attempt (of an instance at `t`, or of a batch named `instance`)."""
        grid = None if self.process.is_batch_consumer else process_grid(self.process, self.cluster.name)
        index = grid.index_of(t) if grid is not None else None
        step = grid.time_of(index + 1) if grid is not None and index is not None else None
        return self.lineage.run("process", self.process.name, nominal=t, nominal_end=step, attempt=attempt,
                                instance=instance, sql=self.workflow.sql, definition=self.provenance)

    def run_and_publish(self, attempt: int, targets: tuple[FileOutput | TableOutputTarget, ...],
                        make_context: Callable[[dict[str, str | TableOutput]], WorkflowContext], keeper: LeaseKeeper,
                        result: InstanceResult, *, staged: tuple[str, int],
                        journal: JobJournal) -> list[PublishedOutput]:
        """Run the workflow with the context `make_context` gives for the outputs' staging places, then publish
        every output atomically, all or none, each step after a check of the lease; the published outputs. Raises
        what failed (the caller discards the staging); shared by instances and batches. `staged`: the run and
        attempt whose staging the workflow writes (this run's `attempt`; a followed job's is its killed run's);
        `journal`: where a workflow that runs as another server's job records it."""
        run_id, staged_attempt = staged
        if self.spark is None:
            raise ToolkitError("process.py needs a Spark session to run a workflow.")
        file_outputs = [o for o in targets if isinstance(o, FileOutput)]
        table_outputs = [o for o in targets if isinstance(o, TableOutputTarget)]
        began = time.perf_counter()
        result.quality = []
        outputs: dict[str, str | TableOutput] = {output.name: output.staging(run_id, staged_attempt)
                                                 for output in file_outputs}
        for target in table_outputs:
            outputs[target.name] = tables.prepare(self.catalog(), self.fs, target)
        if isinstance(self.workflow, RemoteJobWorkflow):
            self.workflow.run_job(make_context(outputs), journal)
        else:
            self.workflow.run(self.spark, make_context(outputs))
        result.workflow_seconds += time.perf_counter() - began
        keeper.ensure_held()
        problems = [p for p in (*(missing_staging(self.fs, o, run_id, staged_attempt) for o in file_outputs),
                                *(tables.missing_partition(self.catalog(), self.fs, o) for o in table_outputs)) if p]
        if problems:  # every output is checked before any is published
            raise NothingWrittenError(problems[0])
        result.quality = self.checks.check(self.spark, file_outputs, table_outputs, run_id, staged_attempt)
        require_passing(result.quality)  # a `block` failure publishes nothing
        keeper.ensure_held()
        with Publication(self.fs, guard=keeper.ensure_held) as publication:  # all or none
            published = [publish(self.fs, output, run_id, staged_attempt, publication) for output in file_outputs]
            published += [tables.publish(self.catalog(), self.fs, target, f"{self.run_id}-{attempt}-{target.name}",
                                         publication) for target in table_outputs]
        return published

    def record_events(self, outputs: Sequence[PublishedOutput], run_id: str,
                      missing_only: bool = False) -> dict[tuple[str, str], Fingerprint | None]:
        """One dataset event per published output instance, with its fingerprint as it is now. `missing_only`
        (an instance found SUCCEEDED): only the events a run killed after its success record did not write.
        The fingerprints recorded, by (feed, time)."""
        recorded_fingerprints: dict[tuple[str, str], Fingerprint | None] = {}
        for output in outputs:
            feed, instance = self.repo.feed(output.feed), output.instance
            recorded = [event for event in self.ledger.events(feed.name, instance)
                        if event.run_id == run_id] if missing_only else []
            if recorded:
                for event in recorded:  # its journal entry may be what the killed run did not write
                    self.ledger.journal.ensure(event)
                continue
            where = feed_locations(feed, self.cluster)
            state = probe_instance(self.fs, where, feed.availability_flag, self.catalog, instance)
            if missing_only and not state.available:
                continue  # gone since (evicted, or replaced by hand): nothing of that publication to record
            fingerprint = state.fingerprint
            recorded_fingerprints[(feed.name, output.time)] = fingerprint
            self.ledger.record_publication(PublicationFacts(feed.name, self.cluster.name, instance,
                                                            producer=f"process:{self.process.name}", run_id=run_id,
                                                            location=where.event_location(instance),
                                                            fingerprint=fingerprint,
                                                            definition=self.provenance), unless_recorded=missing_only)
        return recorded_fingerprints

    def warn_quality(self, t: datetime, attempt: int, quality: Sequence[GateResult], batch: int | None = None) -> None:
        """Outputs published although a `warn` gate failed: said in the log and told to the process's and the
        feed's `notification`."""
        warnings = warnings_of(quality)
        if not warnings:
            return
        told = "; ".join(warning.describe_failures() for warning in warnings) + " (on-failure: warn)"
        self.log(f"process: published although {told}")
        self.notify(t, QUALITY_WARNING, Status.SUCCEEDED, attempt, told, batch=batch)
        for warning in warnings:
            feed = self.repo.feed(warning.feed)
            if feed.notification is not None:
                self.notifier.notify(feed.notification, Notice(
                    QUALITY_WARNING, "feed", feed.name, self.cluster.name, t, "process", Status.SUCCEEDED,
                    run_id=self.run_id, attempt=attempt, error=warning.describe_failures()))

    def discard(self, targets: tuple[FileOutput | TableOutputTarget, ...], attempt: int,
                staged: tuple[str, int] | None = None) -> None:
        """Best effort: a failed attempt leaves no staging behind (what remains, the next attempt clears);
        `staged` as in `run_and_publish`."""
        run_id, staged_attempt = staged or (self.run_id, attempt)
        for output in (o for o in targets if isinstance(o, FileOutput)):
            try:
                discard(self.fs, output, run_id, staged_attempt)
            except StorageError as err:
                self.log(f"process: could not delete the staging of output '{output.name}': {err}")
        for target in (o for o in targets if isinstance(o, TableOutputTarget)):
            try:
                tables.discard(self.catalog(), self.fs, target)
            except ToolkitError as err:
                self.log(f"process: could not drop the staging table of output '{target.name}': {err}")

    def context(self, t: datetime, attempt: int, plan: InstancePlan,
                outputs: dict[str, str | TableOutput]) -> WorkflowContext:
        inputs = workflow_inputs(plan)
        return WorkflowContext(self.process.name, self.cluster.name, t, self.run_id, attempt, inputs, outputs,
                               self.properties(t, inputs, outputs))

    def properties(self, t: datetime, inputs: Mapping[str, tuple[str, ...] | TableInput],
                   outputs: Mapping[str, str | TableOutput]) -> dict[str, str]:
        """Falcon's names, then the cluster's properties, then the process's, EL evaluated at `t`."""
        properties = {**evaluate_properties(self.cluster.properties, t, self.zone, f"cluster '{self.cluster.name}'"),
                      **evaluate_properties(self.process.properties, t, self.zone, self.owner)}
        return {**falcon_properties(inputs, outputs, t), **properties}

    def sleep_before_retry(self, failed_attempts: int) -> None:
        retry = self.process.retry
        if retry is None:
            return
        delay = retry_delay_seconds(retry, failed_attempts, self.clock.now(), self.zone)
        if self.options.max_retry_delay is not None:
            delay = min(delay, self.options.max_retry_delay)
        if delay > 0:
            self.log(f"process: retrying in {delay:.0f} s ({retry.policy.value})")
            self.clock.sleep(delay)

    def notify(self, t: datetime, event: str, status: Status, attempt: int | None = None, error: str | None = None,
               batch: int | None = None) -> None:
        """Tell the process's `notification` about instance `t` (or a batch, `t` its newest input); the run's
        outcome stays what it is whether the message goes out or not."""
        if batch is None and event in (SUCCEEDED, FAILED, TIMEDOUT):
            self._concluded.add(t)
        if self.process.notification is None:
            return
        rerun = None if event == SUCCEEDED else rerun_command(
            "process", str(self.repo.root), "process", self.process.name, self.cluster.name,
            None if batch is not None else t)
        self.notifier.notify(self.process.notification, Notice(
            event, "process", self.process.name, self.cluster.name, t, "process", status, run_id=self.run_id,
            attempt=attempt, error=error, rerun=rerun, batch=batch))

    def _tell_failed(self, t: datetime, error: str, timed_out: bool) -> None:
        """A failure outside the attempts (process_lifecycle), unless the run told the instance's outcome already:
        an error after its SUCCEEDED, FAILED or TIMEDOUT (a release the storage refused) is no second outcome."""
        if t not in self._concluded:
            self.notify(t, TIMEDOUT if timed_out else FAILED, Status.TIMEDOUT if timed_out else Status.FAILED,
                        error=error)

    # Records

    def _record_killed(self, t: datetime, lease: Lease) -> None:
        """A run that held the lock died (its lease expired): its open attempt and the instance become KILLED."""
        ended = wall_clock_stamp(lease.expires)
        for record in self.ledger.attempts(self.process.name, t):
            if record.run_id == lease.run_id and record.status == Status.RUNNING:
                self.ledger.write_attempt(replace(record, status=Status.KILLED, ended=ended, error=(
                    f"the run {lease.run_id} on {lease.holder} stopped renewing its lock; taken over by "
                    f"run {self.run_id}")))
        instance = self.ledger.instance(self.process.name, t)
        if instance is not None and instance.run_id == lease.run_id \
                and instance.status in (Status.RUNNING, Status.WAITING):
            self.ledger.write_instance(replace(instance, status=Status.KILLED, ended=ended, updated=ended))

    def _write_attempt(self, t: datetime, plan: InstancePlan, facts: AttemptFacts) -> None:
        """The attempt's record of the instance `t`: what it read (once it ran) and what `facts` say."""
        self.ledger.write_attempt(AttemptRecord(
            process=self.process.name, cluster=self.cluster.name, time=format_timestamp(t), attempt=facts.attempt,
            run_id=self.run_id, kind=self.options.kind, status=facts.status, started=facts.started_stamp,
            ended=facts.ended_stamp, error=facts.error,
            inputs=[item.to_json() for item in plan.inputs] if facts.status != Status.RUNNING else [],
            outputs=facts.outputs_json(), counters=facts.counters(), quality=facts.quality_json(), job=facts.job,
            definition=self.provenance))

    def _write_instance(self, t: datetime, facts: InstanceFacts, plan: InstancePlan | None = None) -> None:
        """The instance's record as `facts` say, what they leave out kept from the record before (a success's inputs
        and definition from `plan`)."""
        previous = self.ledger.instance(self.process.name, t)
        now = _stamp(_real_now())
        succeeded = previous.succeeded if previous is not None else None
        inputs = previous.inputs if previous is not None else []
        definition = previous.definition if previous is not None else None  # the last success's
        if facts.status == Status.SUCCEEDED and plan is not None:
            succeeded, inputs = now, [item.to_json() for item in plan.inputs]
            definition = self.provenance
        self.ledger.write_instance(InstanceRecord(
            process=self.process.name, cluster=self.cluster.name, time=format_timestamp(t), status=facts.status,
            attempts=facts.attempts, run_id=self.run_id, updated=now,
            started=_stamp(facts.started) if facts.started else (previous.started if previous is not None else None),
            ended=_stamp(facts.ended) if facts.ended else None, error=facts.error, missing=list(facts.missing),
            inputs=inputs, outputs=[output.to_json() for output in facts.outputs] if facts.outputs
            else list(previous.outputs if previous is not None else []), succeeded=succeeded, definition=definition))


def _listed(missing: list[str]) -> str:
    return "; ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")


def _timed_out(owner: str, t: datetime, deadline: datetime, missing: list[str]) -> str:
    return (f"the instance {format_timestamp(t)} of {owner} timed out at {format_timestamp(deadline)} waiting for "
            f"{len(missing)} input instance(s): " + _listed(missing))


def _real_now() -> datetime:
    """Records carry real instants (when an attempt started and ended), whatever clock measures timeouts."""
    return datetime.now(timezone.utc)


def _stamp(value: datetime) -> str:
    return wall_clock_stamp(value.timestamp())
