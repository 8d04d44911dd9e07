"""Retention of every feed of a cluster in one call (`--all`), for a platform whose hundreds of feeds would each pay a
process (and a JVM) per call. A feed is due when the latest instant of its retention cadence at or before the call's
time (toolkit/core/instances/retention_cadence.py) has no retention record yet: it is retained at that instant, as the
scheduled call of the feed alone would be, so a call every hour serves every cadence, a failed or blocked feed is
due again at the next call, and a second call finds nothing left to do. Each feed runs as a call of its own (its
checks, its lease, its ledger record, lineage, notifications and status line), feeds in parallel (bounded) in worker
processes forked from the call (toolkit/services/runtime/worker_processes.py); a feed that needs Spark (a catalog table,
a file system only Hadoop's client reaches) runs in the call's own process, in one Spark session started when the
first of them is due, one such feed at a time. The call's own status line, last, sums them up: its status
is the worst of theirs."""

from __future__ import annotations

import io
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, ExitStack, contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from toolkit.actions.retention.feed_call import RetainOptions, check_feed, needs_spark_error, report_lines, retain_feed
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.retention_cadence import latest_call, retention_end
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import ToolkitError
from toolkit.services.runtime.entry_frame import error_sentence, new_run_id
from toolkit.services.runtime.jvm_free import retention_without_jvm
from toolkit.services.runtime.run_record import record_path
from toolkit.services.runtime.status import StatusLine, emit
from toolkit.services.runtime.worker_processes import can_fork, worker_pool
from toolkit.statuses import Status, worst

if TYPE_CHECKING:
    from toolkit.services.runtime.action_session import ActionSession

NAMED_IN_ERROR = 10  # the feeds a summary's error names; the status lines above it name every one


def retention_due(feed: Feed, cluster: Cluster, fs: FileSystem, t: datetime) -> datetime | None:
    """The instant `feed`'s retention on `cluster` is due at, as of `t`: the latest of its cadence at or before `t`
    unless a retention record of that instant exists or the feed's retention has ended (its validity, and with
    `retention.keep-instances-beyond-validity: "false"` its limit, past); None when it is not due."""
    on = feed.cluster(cluster.name)
    assert on is not None and on.retention is not None  # the call's feeds are those with a retention here
    at = latest_call(feed, on, t)
    if at is None or at >= retention_end(feed, on):
        return None  # before the cadence's first instant, or after the validity: retention never runs then
    if fs.status(record_path(cluster, "retention", feed.name, at)) is not None:
        return None
    return at


def retain_cluster(repo: ConfigRepo, cluster: Cluster, nominal: datetime, status: StatusLine,
                   options: RetainOptions, parallel: int, *, spark_allowed: bool) -> Status:
    """Retain every feed of `cluster` due at `nominal`, `parallel` at once; each feed's status line is printed as it
    ends, `status` (the call's, printed last) gets their sum, and their worst status is returned (SKIPPED when none
    was due). `spark_allowed`: False for `toolkit retain`, which refuses a cluster with a feed that needs Spark
    before anything is touched."""
    require_no_object_store(cluster)
    options = replace(options, once=True)  # the records were looked for before the leases were taken
    feeds = sorted((f for f in repo.feeds.values() if (on := f.cluster(cluster.name)) and on.retention is not None),
                   key=lambda f: f.name)
    with_spark = [feed for feed in feeds if not retention_without_jvm(feed, cluster)]
    if with_spark and not spark_allowed:
        raise needs_spark_error(with_spark, cluster, f"--cluster {cluster.name} --all")
    hive = any(feed.table_on(cluster.name) is not None for feed in with_spark)
    with _LazySpark(cluster, status, hive) as spark:
        call = _ClusterCall(repo, cluster, nominal, options, spark, {feed.name for feed in with_spark},
                            _file_system(cluster, spark))
        lines = call.all(feeds, parallel)
    _sum_up(status, lines, len(feeds))
    return worst(line.status for line in lines)


class _LazySpark:
    """The Spark session of the call's feeds that need one, opened when the first of them is due (a call that finds
    only file feeds due starts none), in the cluster's queueName and jobPriority (cluster properties: one application
    serves every feed); each feed's session shares it, one feed at a time."""

    def __init__(self, cluster: Cluster, status: StatusLine, hive: bool) -> None:
        self.cluster, self.status, self.hive = cluster, status, hive
        self.lock = threading.Lock()  # held while a feed runs in the session: one catalog client at a time
        self._stack = ExitStack()
        self._session: ActionSession | None = None

    def __enter__(self) -> _LazySpark:
        launcher_confs(self.cluster)  # a bad queueName or jobPriority of the cluster: exit 2 before anything
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def session(self) -> ActionSession:
        """The cluster's session; call it holding `lock`."""
        if self._session is None:
            from toolkit.services.runtime.action_session import action_session

            self._session = self._stack.enter_context(action_session(
                "retention", None, self.cluster, self.status, hive=self.hive, launcher=launcher_confs(self.cluster)))
        return self._session

    @contextmanager
    def feed_session(self, status: StatusLine) -> Iterator[ActionSession]:
        """A session for one feed on the shared Spark session, reporting to the feed's `status`."""
        with self.lock, self.session().sharing(status) as session:
            yield session


@dataclass(frozen=True)
class _ClusterCall:
    """What every feed's part of the call shares."""

    repo: ConfigRepo
    cluster: Cluster
    nominal: datetime
    options: RetainOptions
    spark: _LazySpark
    with_spark: set[str]  # the feeds whose retention needs Spark
    fs: FileSystem  # where the retention records are looked for
    printing: threading.Lock = field(default_factory=threading.Lock)  # one feed's lines together

    def all(self, feeds: list[Feed], parallel: int) -> list[StatusLine]:
        """Retain every feed due, `parallel` at once, printing each one's lines as it ends; their status lines. Feeds
        that need Spark run in this process, one after another in its session, while worker processes forked from
        it retain the others (toolkit/services/runtime/worker_processes.py: threads would take turns at Python's
        lock)."""
        forked = [feed for feed in feeds if feed.name not in self.with_spark]
        if parallel == 1 or len(forked) < 2 or not can_fork():
            return [line for feed in feeds if (line := self.show(self.run(feed))) is not None]
        shown: list[StatusLine | None] = []
        with worker_pool(min(parallel, len(forked)), _start_worker, self) as pool:
            for feed in forked:
                pool.submit(_run_in_worker, feed.name).add_done_callback(partial(self._shown, shown, feed.name))
            shown += [self.show(self.run(feed)) for feed in feeds if feed.name in self.with_spark]
        return [line for line in shown if line is not None]

    def run(self, feed: Feed) -> _Outcome:
        """Retain `feed` if it is due; its lines and status line (None: not due). An error ends this feed's part
        only: a ToolkitError is its sentence and exit code, anything else a bug of the toolkit whose traceback goes
        to stderr (FAILED)."""
        began = time.perf_counter()
        status = StatusLine(action="retention", run_id=new_run_id(), entity=feed.name, cluster=self.cluster.name)
        out: list[str] = []
        err: list[str] = []
        try:
            at = retention_due(feed, self.cluster, self.fs, self.nominal)
            if at is None:
                return _Outcome(None)
            status.time = format_timestamp(at)
            check_feed(feed, self.cluster)
            result = retain_feed(self.repo, feed, self.cluster, at, status, self.options, self._opened(feed, status))
            status.status = result.status
            out, err = report_lines(result, self.options.dry_run)
        except ToolkitError as error:
            err = [error_sentence(status, error)]
        except Exception as error:  # a bug: this feed fails, the others go on
            status.status, status.error = Status.FAILED, f"{type(error).__name__}: {error}"
            err = [f"retention: feed '{feed.name}' failed on a fault of the toolkit:",
                   traceback.format_exc().rstrip()]
        if status.elapsed_seconds is None:
            status.elapsed_seconds = round(time.perf_counter() - began, 3)
        return _Outcome(status, tuple(out), tuple(err))

    def show(self, outcome: _Outcome) -> StatusLine | None:
        """Print a feed's lines and status line together (feeds end at once); its status line."""
        if outcome.status is None:
            return None
        with self.printing:
            for line in outcome.err:
                print(line, file=sys.stderr, flush=True)
            for line in outcome.out:
                print(line)
            emit(outcome.status, None)
        return outcome.status

    def _shown(self, shown: list[StatusLine | None], name: str, future: Future[_Outcome]) -> None:
        """A worker's feed shown as it ends (a callback of its future)."""
        shown.append(self.show(_outcome_of(future, name)))

    def _opened(self, feed: Feed, status: StatusLine) -> AbstractContextManager[ActionSession]:
        if feed.name in self.with_spark:
            return self.spark.feed_session(status)
        from toolkit.services.runtime.action_session import storage_session

        return storage_session(self.cluster, status)


@dataclass(frozen=True)
class _Outcome:
    """One feed's part of the call: its status line (None: not due) and the lines it prints before it."""

    status: StatusLine | None
    out: tuple[str, ...] = ()
    err: tuple[str, ...] = ()


_WORKER_CALL: list[_ClusterCall] = []  # in a worker process: the call it was forked from


def _start_worker(call: _ClusterCall) -> None:
    _WORKER_CALL.append(call)


def _run_in_worker(name: str) -> _Outcome:
    """A feed's part, in a worker; what its code printed itself comes back with its lines, for the call to print."""
    call = _WORKER_CALL[0]
    with redirect_stdout(io.StringIO()) as printed, redirect_stderr(io.StringIO()) as warned:
        outcome = call.run(call.repo.feed(name))
    return replace(outcome, out=(*printed.getvalue().splitlines(), *outcome.out),
                   err=(*warned.getvalue().splitlines(), *outcome.err))


def _outcome_of(future: Future[_Outcome], name: str) -> _Outcome:
    """A worker's outcome, or the FAILED line of a feed whose worker died (killed, out of memory) before it ended:
    its lease expires and the next call retains it."""
    try:
        return future.result()
    except Exception as error:
        status = StatusLine(action="retention", run_id=new_run_id(), entity=name, status=Status.FAILED,
                            error=f"the worker process retaining feed '{name}' ended before the feed did "
                                  f"({type(error).__name__}); the next call retains it")
        return _Outcome(status, err=(f"retention: {status.error}",))


def _file_system(cluster: Cluster, spark: _LazySpark) -> FileSystem:
    """The cluster's file system without a JVM where it can be reached so, else through Hadoop's client in the Spark
    session (started at once: every feed of such a cluster needs it)."""
    from toolkit.services.runtime.cluster_files import cluster_file_system, reachable_without_jvm

    if reachable_without_jvm(cluster):
        return cluster_file_system(cluster)
    with spark.lock:
        return spark.session().fs


def _sum_up(status: StatusLine, lines: list[StatusLine], feeds: int) -> None:
    """The call's status line: how many feeds had which status, what they evicted in all, and a sentence naming
    the feeds that did not succeed."""
    by_status = Counter(str(line.status) for line in lines)
    status.add(feeds=feeds, feeds_due=len(lines), feeds_by_status=dict(sorted(by_status.items())),
               instances_evicted=sum(_count(line, "instances_evicted") for line in lines),
               bytes_freed=sum(_count(line, "bytes_freed") for line in lines))
    troubled = [line for line in lines if line.status in (Status.FAILED, Status.INVALID, Status.BLOCKED,
                                                          Status.TIMEDOUT, Status.WAITING)]
    if troubled:
        named = ", ".join(f"{line.entity} ({line.status})" for line in troubled[:NAMED_IN_ERROR])
        more = f" and {len(troubled) - NAMED_IN_ERROR} more" if len(troubled) > NAMED_IN_ERROR else ""
        status.error = f"{len(troubled)} of {len(lines)} feeds due did not succeed: {named}{more}"
        print(f"retention: {status.error}", file=sys.stderr, flush=True)
    elif not lines:
        print(f"retention: no feed's retention is due on cluster '{status.cluster}' at {status.time} "
              f"({feeds} feed(s) with a retention here).", file=sys.stderr, flush=True)


def _count(line: StatusLine, name: str) -> int:
    value = line.details.get(name, 0)
    return value if isinstance(value, int) else 0
