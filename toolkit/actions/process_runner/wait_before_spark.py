"""The wait for a process instance's inputs before any JVM starts: what `toolkit call --wait-first` does before it
starts `spark-submit ... process.py` (every generated crontab line, Airflow task and Oozie action of a process).

A waiting instance then costs one small Python process instead of a JVM and a Spark driver. The wait is the
runner's own (`input_wait.py`), through the same steps (`process_lifecycle`: safemode, suspension, the instance's
hold, its lease, a `toolkit kill` read at each renewal), its inputs read without Spark: files through the cluster's
file system (a `file://` root, HDFS through WebHDFS), a table feed's partitions from the cluster's metastore through
its Thrift API (toolkit/core/storage/metastore_partitions.py). So `toolkit status`, `triage` and the report page
show it WAITING, and for what, as they show a wait in Spark; a second caller is told who holds the instance; a
timeout is recorded (TIMEDOUT, `onTimeout` retries, the notice) exactly as the runner records it.

The call then starts the command only when the instance is ready. Everything else goes to the entrypoint
unchanged: a call that is no plain wait (a window, a batch, `--force`, `--explain`, a bad argument), a process on a
cluster only Hadoop's client reaches, a table-feed input on a cluster without a remote metastore (Spark's own is
in its JVM) or with one only Hive's client reaches (SASL, Kerberos: `NotReachedWithoutJvm`, at any poll), and an
instance that succeeded already. What the wait ends itself (KILLED, TIMEDOUT, WAITING for a call that does not wait
or whose `--max-wait` is spent, and the refusals of the steps it shares with the runner: a lock held, safemode, a
hold, outside the validity) it says with the entrypoint's status line and exit code. The workflow is prepared before
the wait: one the entrypoint would refuse (a file that is not there, an engine's program this host lacks) hands
over at once, and the entrypoint says it.
"""

from __future__ import annotations

import argparse
import functools
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, cast

from toolkit.actions.process_runner.input_wait import InputWait
from toolkit.actions.process_runner.instance_checks import kill_requested, pause_before_retry, require_not_held
from toolkit.actions.process_runner.instance_records import InstanceRecords
from toolkit.actions.process_runner.process_entry import entry_parser
from toolkit.actions.process_runner.process_notices import ProcessNotices
from toolkit.actions.process_runner.run_results import InstanceResult, RunOptions
from toolkit.actions.process_runner.sentences import BRIEF, masking, say
from toolkit.clock import WallClock
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.provenance import provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.plan import plan_instance
from toolkit.core.storage.catalog import PartitionListing
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.java_errors import one_line
from toolkit.core.storage.metastore_partitions import MetastorePartitions, NotReachedWithoutJvm
from toolkit.errors import ToolkitError, UsageError
from toolkit.extensions.workflow_engines.preparation import WorkflowRequest, preparer_of
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.cluster_files import cluster_file_system, reachable_without_jvm
from toolkit.services.runtime.entry_frame import load_repo, new_run_id, parsed_quietly, record_error
from toolkit.services.runtime.lifecycle import ProcessCall, process_lifecycle
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.status import StatusLine, emit
from toolkit.statuses import Status

_say = masking(say)  # sentences on stderr, masked, as the runner's
# What the wait ends itself; any other outcome is the entrypoint's to reach and to say.
ENDED_HERE = frozenset({Status.KILLED, Status.TIMEDOUT, Status.WAITING})


def wait_for_data(arguments: list[str]) -> int | None:
    """Wait, without a JVM, for the inputs of the process instance the process entrypoint's `arguments` (with their
    `--time`) run. None: start the entrypoint now (ready, or nothing to wait for here). Otherwise the call ended here:
    its status line is printed and this is its exit code."""
    args = parsed_quietly(entry_parser(), arguments)
    if args is None:  # a bad call: the entrypoint says so, as it always has
        return None
    began = time.perf_counter()
    status = StatusLine(action="process", run_id=new_run_id(), entity=args.process, cluster=args.cluster)
    notifiers: list[Notifier] = []
    try:
        with _released_on_sigterm():
            ended = _wait(args, status, notifiers)
    except NotReachedWithoutJvm:  # storage or a metastore not reached without a JVM: the entrypoint waits in Spark
        return None
    except ToolkitError as err:  # the same checks the entrypoint makes, said as it says them
        record_error(status, err)
        ended = status.status
    if ended is None:
        return None
    status.status = ended
    for notifier in notifiers:  # as the entrypoint's status line counts a process's notification
        status.add(**notifier.counters())
    status.elapsed_seconds = round(time.perf_counter() - began, 3)
    return emit(status, args.status_file)


def _wait(args: argparse.Namespace, status: StatusLine, notifiers: list[Notifier]) -> Status | None:
    """The wait's own ending, or None when the entrypoint takes over; the notifier it told through, in
    `notifiers` when the process declares `notification`."""
    if args.window_from or args.window_to or args.batch or args.explain or args.force \
            or args.force_if_started_before is not None or args.time is None:
        return None
    repo = load_repo(args.repo)
    process, cluster = repo.process(args.process), repo.cluster(args.cluster)
    if not _inputs_without_jvm(repo, process, cluster) or process.is_batch_consumer:
        return None
    t = parse_timestamp(args.time, "--time")
    status.time = format_timestamp(t)
    clock = WallClock(parse_timestamp(args.now, "--now") if args.now else None)
    try:
        fs = cluster_file_system(cluster)
        fs.exists(cluster.write_endpoint or "")  # reached at all: before the lifecycle, which tells failures
    except (UsageError, StorageError) as err:  # WebHDFS not reached (Kerberos without its extension, down)
        raise NotReachedWithoutJvm(str(err)) from None
    context = RunContext(cast(FileSystem, _HandingOver(fs)), status.run_id, lease_seconds=args.lease, clock=clock)
    fs = context.fs
    ledger = context.ledger(cluster)
    try:  # a workflow that cannot run is said at once by the entrypoint, not after hours of waiting
        preparer_of(engine_of(process))(WorkflowRequest(
            repo_root=Path(repo.root), process=process, cluster=cluster, fs=context.fs, spark=None,
            path=process.workflow.path, owner=f"process '{process.name}'", clock=clock))
    except UsageError as err:  # or one this host cannot judge (spark-submit's SPARK_HOME, the cluster's storage)
        raise NotReachedWithoutJvm(str(err)) from None
    definition = provenance(process, Path(repo.root), repo.revision)
    call = ProcessCall(repo, process, cluster, t, definition)
    records = InstanceRecords(ledger, process.name, cluster.name, status.run_id, kind="RUN", definition=definition)
    notifier = Notifier(context.fs, cluster)
    if process.notification is not None:
        notifiers.append(notifier)
    notices = ProcessNotices(notifier, repo, process, cluster, status.run_id, _say)
    zone = resolve_zone(process.timezone)
    registry = cluster.registry_endpoint

    def partitions() -> PartitionListing:
        assert registry  # _inputs_without_jvm checked it
        return MetastorePartitions(registry)

    options = RunOptions(wait=args.wait, max_wait=args.max_wait, max_retry_delay=args.max_retry_delay)
    wait = InputWait(process, zone, clock, options, ledger=ledger, records=records, notices=notices,
                     plan=lambda at: plan_instance(repo, process, cluster, at, fs, partitions),
                     check_hold=lambda at: require_not_held(ledger, process, cluster.name, at),
                     pause_before_retry=lambda failed: pause_before_retry(
                         process, clock, zone, args.max_retry_delay, _say, failed), log=_say)
    with process_lifecycle(call, context, tell=lambda error, timed_out: notices.failed_outside_attempts(
            t, error, timed_out), before_lease=lambda: require_not_held(ledger, process, cluster.name, t),
            stop_when=lambda: kill_requested(ledger, process, t, status.run_id)) as held:
        if held.previous is not None:
            records.killed(t, held.previous)
        record = ledger.instance(process.name, t)
        if record is not None and record.status == Status.SUCCEEDED:
            return None
        ledger.clear_kill_request(process.name, t)  # one left for an earlier run is stale
        result = InstanceResult(t, Status.RUNNING, record=ledger.layout.instance_record(process.name, t))
        plan, _ = wait.until_ready(t, record, result, held.keeper)
    if plan is not None or result.status not in ENDED_HERE:
        return None
    if result.reason:
        _say(f"process: {one_line(result.reason, BRIEF).rstrip('.')}.")
    status.add(record=result.record, missing=result.missing or None, outputs=[], **result.counters())
    return result.status


def _inputs_without_jvm(repo: ConfigRepo, process: Process, cluster: Cluster) -> bool:
    """Whether every input of `process` on `cluster` is read without a JVM: files on a cluster reached without one,
    and a table feed's partitions from the cluster's remote metastore (`registry`: without one, the metastore is
    Spark's own)."""
    if not reachable_without_jvm(cluster):
        return False
    tables = any(repo.feed(item.feed).table_on(cluster.name) is not None for item in process.inputs)
    return not tables or bool(cluster.registry_endpoint)


class _HandingOver:
    """The cluster's file system without a JVM, each failure of its storage (WebHDFS down or refused, a namenode gone
    standby: StorageError, exit 1) raised as NotReachedWithoutJvm: the wait hands the instance to the entrypoint,
    which reaches the storage through Hadoop's client and says a failure as it always has, instead of this wait
    telling one where spark-submit would have run (no notice: a usage error is none)."""

    def __init__(self, fs: FileSystem) -> None:
        self._fs = fs

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._fs, name)
        if not callable(found):
            return found

        @functools.wraps(found)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return found(*args, **kwargs)
            except StorageError as err:
                raise _StorageNotReached(str(err)) from None
        return call


class _StorageNotReached(NotReachedWithoutJvm, StorageError):
    """A storage failure of the JVM-free file system: still a StorageError to the code that waits out an outage
    (the lease's renewals try again), but a usage error to the lifecycle (exit 2 comes first: no failure to tell),
    and a hand-over to the wait (NotReachedWithoutJvm)."""


@contextmanager
def _released_on_sigterm() -> Iterator[None]:
    """A scheduler's SIGTERM (a task's timeout, a killed workflow) ends the wait through its `finally`s: the lease
    is released, the record stays WAITING."""
    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():  # only the main thread sets a handler
        yield
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

