"""How the `oozie` and `pig` engines run a process's workflow: as Falcon did, by handing it to the cluster's Oozie
server (its `workflow` interface), never running it here.

- `oozie`: workflow.path is the workflow application (a folder holding workflow.xml) on the cluster;
- `pig`: workflow.path is the Pig script on the cluster, run by a one-action workflow (pig_workflow.py) written
  under the cluster's working location (`oozie/pig/<process>/<hash>/workflow.xml`) when a job is submitted.
Each attempt submits a workflow job with the instance's job configuration (oozie_configuration.py), in PREP;
records its id in the attempt's record (`JobJournal`); starts it; and asks its status every
`oozie.client.poll-seconds` (of the runner's clock; a request that fails is asked again at the next poll) until
it ends: SUCCEEDED is the attempt's success (the runner then publishes the staging paths the job was given),
FAILED and KILLED a failed attempt whose sentence names the job and what Oozie says of its failed actions (the
job's end status is kept in the attempt's record). Past the process's `timeout` (from the attempt's start; a
batch consumer without one has no limit) the job is killed and the attempt TIMEDOUT. A run killed with the job
running (kill -9) leaves it running: the next run of the instance (or replay of the batch) finds its id in the
ledger and follows it, with the killed run's staging, instead of submitting it again; a job found in PREP (its
run died between submission and start) is started then. While the instance is held (`toolkit suspend --time`) the
run suspends its running job (`PUT /v2/job/ID?action=suspend`, or leaves a PREP job unstarted) and keeps following
it, the timeout waiting with it; once the hold is removed it resumes the job (a job found SUSPENDED, which the run
that suspended it left so when it died, is resumed too unless the instance is still held). A run stopped otherwise
(a signal, a lost lock) kills the job, as the spark engine stops its spark-submit.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
from dataclasses import dataclass, field
from datetime import datetime

from toolkit.clock import Clock
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.timeouts import process_timeout
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.context import TableInput, WorkflowContext
from toolkit.extensions.workflow_engines.oozie_client import JobInfo, OozieClient, OozieError
from toolkit.extensions.workflow_engines.oozie_configuration import job_configuration, on_cluster
from toolkit.extensions.workflow_engines.oozie_settings import (
    OozieAccess,
    interface_problem,
    oozie_access,
    settings_problems,
)
from toolkit.extensions.workflow_engines.pig_workflow import pig_workflow_xml
from toolkit.extensions.workflow_engines.preparation import JobJournal, WorkflowRequest
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError
from toolkit.statuses import Status


@dataclass(frozen=True)
class OozieWorkflow:
    name: str  # the application folder or the Pig script, as Oozie reads it
    process: Process
    cluster: Cluster
    fs: FileSystem
    access: OozieAccess
    pig: bool
    clock: Clock
    sql: None = None
    client: OozieClient = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "client", OozieClient(self.access))

    def run_job(self, ctx: WorkflowContext, journal: JobJournal) -> None:
        job = journal.followed()
        if job is None:
            job = self.client.submit(job_configuration(self.process, self.cluster, ctx, self._application(ctx),
                                                       self.access.user, self.access.url))
            journal.record(job)
        try:
            info = self.follow(job, journal)
        except BaseException as err:
            if not isinstance(err, WorkflowError):  # stopped (a signal, a lost lock): the job stops with the run
                with contextlib.suppress(OozieError):
                    self.client.kill(job)
                    journal.ended("KILLED")
            raise
        journal.ended(info.status)
        if info.status != "SUCCEEDED":
            raise WorkflowError(f"The Oozie workflow job {job} of {self.name} ended {info.status}: "
                                f"{info.failure()}.")

    def follow(self, job: str, journal: JobJournal) -> JobInfo:
        """The job's status once it ends; a job in PREP is started. A status request or start that fails (Oozie
        restarting, the network) is tried again at the next poll: giving up then would leave the job running and
        the retry would run the workflow twice. Past the process's timeout the job is killed (a batch consumer
        without `timeout` has none: it has no frequency to take the default from). While `journal.held()` the job
        is suspended (a PREP one left unstarted) and the timeout waits; once released it is resumed."""
        now = self.clock.now()
        limit = self._limit()
        deadline = shift(now, limit, resolve_zone(self.process.timezone), +1) if limit is not None else None
        failed: OozieError | None = None
        suspended_since: datetime | None = None  # when this run suspended the job for the instance's hold
        while True:
            try:
                info = self.client.info(job)
                if info.ended:
                    return info
                held = journal.held()
                if info.status == "SUSPENDED" and suspended_since is None:  # a run that suspended it died
                    suspended_since = self.clock.now()
                if held is not None and suspended_since is None and info.status in ("PREP", "RUNNING"):
                    if info.status == "RUNNING":  # a PREP job is simply not started
                        self.client.suspend(job)
                    suspended_since = self.clock.now()
                    _say(f"the Oozie workflow job {job} of {self.name} is suspended: the instance is {held}.")
                elif held is None and suspended_since is not None:
                    if info.status == "SUSPENDED":
                        self.client.resume(job)
                    if deadline is not None:  # the time it was held does not count against the timeout
                        deadline += self.clock.now() - suspended_since
                    suspended_since = None
                    _say(f"the Oozie workflow job {job} of {self.name} is resumed: its instance is no longer held.")
                if info.status == "PREP" and suspended_since is None:
                    self.client.start(job)
                failed = None
            except OozieError as err:
                failed = err
            now = self.clock.now()
            if suspended_since is not None:  # held: the timeout waits with the job
                self.clock.sleep(self.access.poll_seconds)
                continue
            if deadline is not None and now >= deadline:
                raise self._timed_out(job, journal, failed)
            left = (deadline - now).total_seconds() if deadline is not None else self.access.poll_seconds
            self.clock.sleep(min(self.access.poll_seconds, left))

    def _limit(self) -> Frequency | None:
        if self.process.timeout is None and self.process.frequency is None:
            return None
        return process_timeout(self.process)

    def _timed_out(self, job: str, journal: JobJournal, failed: OozieError | None) -> WorkflowError:
        said = f"The Oozie workflow job {job} of {self.name} ran past the timeout of process '{self.process.name}' " \
               f"({self._limit()})"
        if failed is not None:
            said += f", its status unknown ({failed})"
        try:
            self.client.kill(job)
        except OozieError as err:
            return WorkflowError(f"{said}, and could not be killed: {err}", Status.TIMEDOUT)
        journal.ended("KILLED")
        return WorkflowError(f"{said} and was killed.", Status.TIMEDOUT)

    def _application(self, ctx: WorkflowContext) -> str:
        """The workflow application's path: workflow.path, or the wrapper of the Pig script, written now."""
        if not self.pig:
            return self.name
        tables_in = {name for name, value in ctx.inputs.items() if isinstance(value, TableInput)}
        tables_out = {name for name, value in ctx.outputs.items() if not isinstance(value, str)}
        archives = [on_cluster(self.cluster, entry.strip())
                    for entry in (self.process.workflow.lib or "").split(",") if entry.strip()]
        text = pig_workflow_xml(self.process, self.name, archives, tables_in, tables_out).encode("utf-8")
        working = self.cluster.location("working") or ""
        folder = on_cluster(self.cluster, f"{working.rstrip('/')}/oozie/pig/{self.process.name}/"
                                          f"{hashlib.sha256(text).hexdigest()[:16]}")
        try:
            if self.fs.read_if_exists(f"{folder}/workflow.xml") != text:
                self.fs.write_atomically(f"{folder}/workflow.xml", text)
        except StorageError as err:
            raise WorkflowError(f"The Oozie workflow of the Pig script {self.name} cannot be written to {folder}: "
                                f"{err}") from None
        return folder


def _say(sentence: str) -> None:
    print(f"process: {sentence}", file=sys.stderr, flush=True)


def prepare_oozie(request: WorkflowRequest) -> OozieWorkflow:
    """workflow.path (or a late input's workflow-path) is the application folder; its workflow.xml must exist."""
    access = _access(request)
    app = on_cluster(request.cluster, request.path)
    _require(request, f"{app.rstrip('/')}/workflow.xml", "the workflow application's workflow.xml")
    return OozieWorkflow(app.rstrip("/"), request.process, request.cluster, request.fs, access, pig=False,
                         clock=request.clock)


def prepare_pig(request: WorkflowRequest) -> OozieWorkflow:
    """workflow.path (or a late input's workflow-path) is the Pig script; it must exist."""
    access = _access(request)
    script = on_cluster(request.cluster, request.path)
    _require(request, script, "the Pig script")
    if not request.cluster.location("working"):
        raise UsageError(f"The {request.owner} has engine pig, and cluster '{request.cluster.name}' has no working "
                         "location to write the script's Oozie workflow to: set locations.working.")
    return OozieWorkflow(script, request.process, request.cluster, request.fs, access, pig=True,
                         clock=request.clock)


def _access(request: WorkflowRequest) -> OozieAccess:
    cluster, engine = request.cluster, request.process.workflow.engine
    problem = interface_problem(cluster)
    if problem is not None:
        raise UsageError(f"The {request.owner} has engine {engine}, which runs on the cluster's Oozie server, and "
                         f"cluster '{cluster.name}' {problem}")
    problems = settings_problems(cluster)
    if problems:
        name, what = problems[0]
        raise UsageError(f"The cluster property {name} of cluster '{cluster.name}' cannot work: {what}")
    return oozie_access(cluster)


def _require(request: WorkflowRequest, path: str, what: str) -> None:
    try:
        found = request.fs.exists(path)
    except StorageError as err:
        raise UsageError(f"The workflow.path of {request.owner} names {what} {path}, which cannot be checked on "
                         f"cluster '{request.cluster.name}' ({err}): fix workflow.path or the cluster's file "
                         "system.") from None
    if not found:
        raise UsageError(f"The workflow.path of {request.owner} names {what} {path}, which does not exist on "
                         f"cluster '{request.cluster.name}': put it there or fix workflow.path.")
