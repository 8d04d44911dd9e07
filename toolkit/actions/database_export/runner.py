"""One export of a published feed instance into a database table (Falcon's export policy, Sqoop's export), in a
single call, so that the target table is old or new, never half-written, and a finished export is not done twice:

1. the instance must be on the feed's grid within its validity (checked by the entry, before Spark); safemode
   (5) or the feed suspended (4) before anything is touched; the export's lease on (feed, cluster, instance)
   (exit 5 naming its holder);
2. a run killed before it recorded its end is looked up in the target database: when its transaction committed
   (its row in `feed_toolkit_exports`, loading.py), its export is recorded done; otherwise its staging table is
   dropped and the export done anew. An instance exported already is skipped (4) unless `--force`;
3. the instance read where it is published (exit 3 while it is not: instance_rows.py), the columns its `fields`
   take, each checked against the target table;
4. the rows written by Spark's JDBC source into a staging table shaped like the target
   (`feed_toolkit_stage_<key>`, in the target's schema), which no reader of the target looks at;
5. one transaction: the load of the staging rows into the target by the export's `load` type and the export's
   row in `feed_toolkit_exports`, committed together (a kill or a failure before the commit rolls both back);
6. the staging table dropped, the export's record in the ledger, the lineage run (the instance as its input,
   the table as a dataset of its database's namespace), the status line.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING

from toolkit.actions.database_export.instance_rows import (
    instance_rows,
    missing,
    require_key_columns,
    require_target_columns,
)
from toolkit.actions.database_export.loading import (
    ExportedInstance,
    create_exports_table,
    exports_table,
    find_export,
    load_statements,
    record_export,
    update_keys,
)
from toolkit.core.el.timestamps import format_timestamp, instance_key
from toolkit.core.entities.model import Cluster, Datasource, Export, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.ledger.database_transfers import ExportBook, ExportRecord
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import wall_clock_stamp
from toolkit.core.ledger.run_locks import HeldLease, describe_holder
from toolkit.core.storage.java_errors import spark_work
from toolkit.core.storage.jdbc.connection import DatabaseSession, database_session
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.errors import SkippedError, TimedOutError, ToolkitError, UsageError, WaitingError
from toolkit.services.datasource_access.datasets import table_use
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, InstanceCall, Lifecycle, feed_lifecycle
from toolkit.services.runtime.lineage import recorded_fingerprint, watched
from toolkit.services.runtime.polling import poll_intervals
from toolkit.services.runtime.run_context import RunContext
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

STAGING_PREFIX = "feed_toolkit_stage_"
DEFAULT_BATCH_SIZE = 10_000


def say(line: str) -> None:
    """A sentence for people: on stderr, apart from the status line."""
    print(f"export: {line}", file=sys.stderr, flush=True)


EXPORT = ActionKind(name="export", script="export", job="export", producer="export")  # it writes no dataset event


@dataclass(frozen=True)
class ExportCall(InstanceCall):
    """What one call exports: the `instance` (a feed's on a cluster, inside its validity, with its definition) by
    the feed's export `policy` there into `datasource`."""

    policy: Export
    datasource: Datasource
    force: bool = False

    @classmethod
    def of(cls, repo: ConfigRepo, feed: Feed, cluster: Cluster, policy: Export, datasource: Datasource, t: datetime,
           force: bool = False) -> ExportCall:
        """The call of `t`: SkippedError (4) outside the feed's validity, UsageError (2) off its grid."""
        return cls(FeedCall.of(EXPORT, repo, feed, cluster, t), policy, datasource, force)

    @property
    def table(self) -> str:
        return self.policy.target.table_name

    @property
    def owner(self) -> str:
        return (f"The export of feed '{self.feed.name}' on cluster '{self.cluster.name}' into table '{self.table}' of "
                f"datasource '{self.datasource.name}'")

    def staging(self, target: str) -> str:
        """The staging table, in the schema of `target` (the target as the database stores its name): one per
        instance exported (its lease makes it this run's), so a killed run's is found by the next."""
        key = hashlib.sha1(f"{self.feed.name}|{self.cluster.name}|{instance_key(self.time)}".encode()).hexdigest()
        schema, _, _ = target.rpartition(".")
        return f"{schema}.{STAGING_PREFIX}{key[:10]}" if schema else f"{STAGING_PREFIX}{key[:10]}"


@dataclass(frozen=True)
class Waiting:
    """How long an export waits for its instance to be published before it gives up for this call: until `until`
    (None: it does not wait), looking again after each of `intervals` (toolkit/services/runtime/polling.py); past the
    feed's `timeout` after the instance (`deadline`, Falcon's rule, as replication's) the instance is given up: exit
    1. The time is the call's clock's (`RunContext.clock`)."""

    until: datetime | None
    deadline: datetime
    intervals: Callable[[], Iterator[float]] = poll_intervals


@dataclass
class ExportOutcome:
    status: Status
    rows: int = 0
    source: str = ""
    finished: str | None = None
    took_over: str | None = None
    seconds: float = 0.0

    def counters(self) -> dict[str, object]:
        found: dict[str, object] = {"rows": self.rows, "source": self.source}
        if self.finished:
            found["finished"] = self.finished
        if self.took_over:
            found["took_over"] = self.took_over
        found["elapsed_seconds"] = round(self.seconds, 3)
        return found


def run_export(spark: SparkSession, call: ExportCall, endpoint: JdbcEndpoint, context: RunContext,
               waiting: Waiting | None = None) -> ExportOutcome:
    """Export the instance; SkippedError (4) when it was exported already and not forced, WaitingError (3) while it
    is not published (after `waiting`, when given), ToolkitError (1) when it was not by the feed's timeout,
    BlockedError (5) while another run holds the lease."""
    began = time.perf_counter()
    feed, cluster, t = call.feed, call.cluster, call.time
    what = f"export of the instance {format_timestamp(t)} of feed '{feed.name}' on cluster '{cluster.name}'"
    with feed_lifecycle(call.instance, context, lock=lambda ledger: ledger.database_export_lock(feed.name, t),
                        what=what, details=LeaseDetails(time=format_timestamp(t)),
                        before_lease=lambda: wait_for_instance(call, context, waiting)) as life, \
            database_session(spark, endpoint) as database:
        outcome = _Export(spark, call, context, life, database).run()
    held = life.lease
    outcome.took_over = describe_holder(held.previous) if held.previous is not None else None
    outcome.seconds = time.perf_counter() - began
    return outcome


def wait_for_instance(call: ExportCall, context: RunContext, waiting: Waiting | None) -> None:
    """Return once the instance is published; WaitingError when it is not by the end of the wait, TimedOutError when
    the feed's timeout after the instance has passed. A run that waits holds no lease: it only reads; so does the
    wait before Spark (wait_before_spark.py), through the cluster's file system without a JVM."""
    where = feed_locations(call.feed, call.cluster)
    intervals = waiting.intervals() if waiting is not None else iter(())
    while (why := missing(call.feed, where, call.time, context)) is not None:
        if waiting is None:
            raise WaitingError(why + ".")
        now = context.clock.now()
        if now >= waiting.deadline:
            raise TimedOutError(f"{why}, and the feed's timeout after it passed at "
                               f"{format_timestamp(waiting.deadline)}: the instance is given up (export it by hand "
                               "once it is published).")
        if waiting.until is None or now >= waiting.until:
            raise WaitingError(f"{why}; waited until {format_timestamp(now)} (the feed's timeout is "
                               f"{format_timestamp(waiting.deadline)}).")
        context.clock.sleep(max(0.0, min(next(intervals), (waiting.until - now).total_seconds())))


@dataclass
class _Export:
    spark: SparkSession
    call: ExportCall
    context: RunContext
    life: Lifecycle
    database: DatabaseSession

    @property
    def held(self) -> HeldLease:
        return self.life.lease

    @property
    def book(self) -> ExportBook:
        return ExportBook(self.context.fs, self.life.ledger.layout, self.call.feed.name)

    @cached_property
    def stored_target(self) -> str | None:
        """The target table as the database stores its name (`daily_totals` is DAILY_TOTALS in Derby or Oracle);
        None when the database has no such table."""
        return self.database.stored_table(self.call.table)

    @property
    def target(self) -> str:
        """The target table as the statements name it: as the database stores it, else as the export names it."""
        return self.stored_target or self.call.table

    @property
    def exports(self) -> str:
        """The exports table as the toolkit creates it, beside the target."""
        return exports_table(self.target)

    @property
    def staging(self) -> str:
        return self.call.staging(self.target)

    def run(self) -> ExportOutcome:
        call, t = self.call, self.call.time
        previous = self.book.instances.read(t)
        finished = self._finish_killed(previous) if previous is not None and previous.status is Status.RUNNING \
            else None
        if finished is not None:
            previous = self.book.instances.read(t)
        if previous is not None and previous.status is Status.SUCCEEDED and not call.force:
            raise SkippedError(f"The instance {previous.time} of feed '{call.feed.name}' on cluster "
                               f"'{call.cluster.name}' was exported into {previous.table} by run {previous.run_id} "
                               f"({previous.ended}, {previous.rows} rows){'; ' + finished if finished else ''}: give "
                               "--force to export it again.")
        if self.stored_target is None:
            raise UsageError(f"{call.owner}: the table {call.table} does not exist in "
                               f"{self.database.endpoint.shown_url}: create it (the export loads rows, it does not "
                               "design tables).")
        where = feed_locations(call.feed, call.cluster)
        with spark_work(f"Reading the instance {format_timestamp(t)} of feed '{call.feed.name}'"):
            frame, source = instance_rows(self.spark, call.feed, where, t, self.context, call.policy.target.fields,
                                          call.owner)
            target_columns = self._target_columns()
            columns = require_target_columns(frame, target_columns, call.table, call.owner)
        keys = require_key_columns(update_keys(call.policy.arguments, call.policy.target.load, call.owner),
                                   target_columns, call.table, call.owner)
        if ignored := sorted(set(call.policy.arguments) - {"update-key", "batch-size"}):
            say(f"the arguments {', '.join(ignored)} of feed '{call.feed.name}' are Sqoop's and not read by the export")
        record = ExportRecord(call.feed.name, call.cluster.name, format_timestamp(t), self.context.run_id,
                              Status.RUNNING, wall_clock_stamp(self.context.clock.time()), call.datasource.name,
                              call.table, call.policy.target.load.value, self.staging, source)
        self.held.check()
        self.book.instances.write(record, t)
        run = self.life.run()
        on = self.context.lineage.enabled  # naming datasets imports OpenLineage's client: only when lineage is on
        inputs = [DatasetUse.at(call.feed, call.cluster, [t],
                                {t: recorded_fingerprint(self.context.fs, call.feed, call.cluster, t)})] if on else []
        targets = [table_use(call.datasource, self.database.endpoint, call.table)] if on else []
        try:
            with watched(run, inputs, targets), spark_work(f"Writing feed '{call.feed.name}' into table "
                                                           f"'{call.table}'"):
                rows = self._load(frame.toDF(*columns), columns, keys)
        except Exception as err:  # a kill (SIGKILL, or BaseException in tests) leaves all for the next run
            self._drop_staging()
            self.book.instances.write(replace(record, status=Status.FAILED, error=str(err),
                                              ended=wall_clock_stamp(self.context.clock.time())), t)
            raise
        self._drop_staging()
        self.book.instances.write(replace(record, status=Status.SUCCEEDED, rows=rows,
                                          ended=wall_clock_stamp(self.context.clock.time())), t)
        if on:
            run.complete(inputs, [replace(target, rows=rows) for target in targets])
        return ExportOutcome(Status.SUCCEEDED, rows, source, finished)

    def _target_columns(self) -> list[str]:
        endpoint = self.database.endpoint
        frame = (self.spark.read.format("jdbc").options(**endpoint.spark_options())
                 .option("dbtable", endpoint.dialect.table(self.target)).load())
        return list(frame.columns)

    def _load(self, frame: DataFrame, columns: list[str], keys: tuple[str, ...]) -> int:
        """The rows into the staging table, then into the target in one transaction with the export's row."""
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        call, database = self.call, self.database
        dialect, endpoint = database.endpoint.dialect, database.endpoint
        self._drop_staging()
        exports = database.stored_table(self.exports)
        if exports is None:
            exports = self.exports
            database.execute(create_exports_table(dialect, exports))
        database.execute(dialect.create_like(self.staging, self.target))
        observed = Observation("feed-toolkit-export")
        batch = call.policy.arguments.get("batch-size", "").strip() or str(DEFAULT_BATCH_SIZE)
        (frame.observe(observed, F.count(F.lit(1)).alias("rows")).write.format("jdbc")
         .options(**endpoint.spark_options())
         .option("dbtable", dialect.table(self.staging)).option("batchsize", batch).mode("append").save())
        rows = int(observed.get.get("rows", 0))
        statements = load_statements(dialect, call.policy.target.load, self.target, self.staging, columns, keys)
        instance = ExportedInstance(call.feed.name, call.cluster.name, format_timestamp(call.time),
                                    self.context.run_id)
        self.held.check()  # the last moment a run that lost its lease stops before it changes the target
        database.run_in_transaction([*statements, record_export(dialect, exports, instance, rows)])
        return rows

    def _drop_staging(self) -> None:
        with contextlib.suppress(ToolkitError):  # a staging table left is dropped by the next run
            staging = self.database.stored_table(self.staging)
            if staging is not None:
                self.database.execute(self.database.endpoint.dialect.drop(staging))

    def _finish_killed(self, previous: ExportRecord) -> str | None:
        """A run killed before it recorded its end: done when its transaction committed (recorded so now), else its
        staging table dropped. What was done, as a clause, or None."""
        instance = ExportedInstance(previous.feed, previous.cluster, previous.time, previous.run_id)
        dialect = self.database.endpoint.dialect
        exports = self.database.stored_table(self.exports)
        rows = self.database.first_row(find_export(dialect, exports, instance)) if exports is not None else []
        self._drop_staging()
        if not rows:  # its transaction did not commit
            say(f"run {previous.run_id} was killed before its transaction committed: {self.call.table} was left as it "
                "was, and the instance is exported anew")
            return None
        self.held.check()
        self.book.instances.write(replace(previous, status=Status.SUCCEEDED, rows=int(rows[0] or 0),
                                          ended=wall_clock_stamp(self.context.clock.time())), self.call.time)
        finished = (f"run {previous.run_id} had loaded it ({rows[0]} rows) before it was killed: its export is "
                    "recorded now")
        say(finished)
        return finished
