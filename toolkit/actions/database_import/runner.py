"""One import of a feed instance from a database table (Falcon's import policy, Sqoop's job), in a single call:

1. the instance must be one of the feed's grid within its validity on the cluster (checked by the entry, before
   Spark); safemode (5) or the feed suspended (4) before anything is touched;
2. the import's lease (exit 5 naming its holder): the instance's for a full import; the feed's for an incremental
   one, whose reads follow each other from one high-water mark (database_transfers.py);
3. an incremental import first finishes a read a killed run left pending (its rows published: the mark is moved
   past them; not published: the read is dropped and done again); an instance imported already is skipped (4)
   unless `--force`;
4. the range: a full import reads the table; an incremental one the rows past the high-water mark up to the
   largest value it finds now (the first reads the whole table), written down as pending before the read; a
   forced re-import of an incremental instance reads the range it read before, and moves no mark;
5. the rows read through Spark's JDBC source, in slices of `split-by` or the table's primary key (source_rows.py,
   checked before step 4 writes anything), in the feed's columns and format, into the instance's staging
   (instance_targets.py) with the import's marker beside them;
6. the feed's quality gate on the staged rows (`block`: nothing published, exit 1);
7. one publication: the staging swapped into place (readers see the old instance or the new one), then, in the
   same publication, the high-water mark moved and the pending read dropped;
8. the dataset event, the import's record in the ledger, the lineage run (the table as a dataset of its
   database's namespace, the query as the job's SQL), the status line.
"""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.actions.database_import.instance_targets import ImportTarget, import_target
from toolkit.actions.database_import.source_rows import (
    ARGUMENTS,
    ReadSettings,
    SourceTable,
    conversion_error,
    converted,
    largest,
    read_rows,
    source_query,
    source_table,
    with_split_column,
)
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Datasource, ExtractType, Feed, Import
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import FeedLocations, feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.database_transfers import (
    HighWaterMark,
    ImportBook,
    ImportedRange,
    ImportRecord,
    PendingRead,
)
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.quality_results import GateResult, summary
from toolkit.core.ledger.records import Written, wall_clock_stamp
from toolkit.core.ledger.run_locks import HeldLease, describe_holder
from toolkit.core.storage.java_errors import spark_work
from toolkit.core.storage.jdbc.connection import DatabaseSession, database_session
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.publish import Publication
from toolkit.errors import SkippedError, ToolkitError, UsageError
from toolkit.services.datasource_access.datasets import table_use
from toolkit.services.datasource_access.fields import selected
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, InstanceCall, Lifecycle, feed_lifecycle
from toolkit.services.runtime.lineage import watched
from toolkit.services.runtime.run_context import RunContext
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

IMPORT = ActionKind(name="import", script="import", job="import", producer="import")


def say(line: str) -> None:
    """A sentence for people: on stderr, apart from the status line."""
    print(f"import: {line}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class ImportCall(InstanceCall):
    """What one call imports: the `instance` (a feed's on a cluster, inside its validity, with its definition) by
    the feed's import `policy` there from `datasource`."""

    policy: Import
    datasource: Datasource
    force: bool = False

    @classmethod
    def of(cls, repo: ConfigRepo, feed: Feed, cluster: Cluster, policy: Import, datasource: Datasource, t: datetime,
           force: bool = False) -> ImportCall:
        """The call of `t`: SkippedError (4) outside the feed's validity, UsageError (2) off its grid."""
        return cls(FeedCall.of(IMPORT, repo, feed, cluster, t), policy, datasource, force)

    @property
    def incremental(self) -> bool:
        return self.policy.source.extract.type is ExtractType.INCREMENTAL

    @property
    def table(self) -> str:
        return self.policy.source.table_name

    @property
    def owner(self) -> str:
        return (f"the import of feed '{self.feed.name}' on cluster '{self.cluster.name}' from table "
                f"'{self.table}' of datasource '{self.datasource.name}'")


@dataclass
class ImportOutcome:
    """What the call did: its status, the rows it read and published, and what else it finished or found."""

    status: Status
    rows: ImportedRange
    read: int = 0
    files: int = 0
    bytes: int = 0
    location: str = ""
    event_id: str | None = None
    replaced: bool = False
    finished: str | None = None  # what it finished of a killed run's import
    took_over: str | None = None
    quality: tuple[GateResult, ...] = ()
    seconds: float = 0.0

    def counters(self) -> dict[str, object]:
        found: dict[str, object] = {"rows": self.read, "files": self.files, "bytes": self.bytes,
                                    "location": self.location, "replaced": self.replaced}
        if self.rows.column is not None:
            found.update(check_column=self.rows.column, after=self.rows.after, up_to=self.rows.up_to)
        if self.event_id:
            found["event_id"] = self.event_id
        if self.finished:
            found["finished"] = self.finished
        if self.took_over:
            found["took_over"] = self.took_over
        if checked := summary(self.quality):
            found["quality"] = checked
        found["elapsed_seconds"] = round(self.seconds, 3)
        return found


def run_import(spark: SparkSession, call: ImportCall, endpoint: JdbcEndpoint, context: RunContext) -> ImportOutcome:
    """Import the instance; SkippedError (4) when it is imported already and not forced, BlockedError (5) while
    another run holds the lease."""
    began = time.perf_counter()
    feed, cluster, t = call.feed, call.cluster, call.time
    what = (f"import of feed '{feed.name}' on cluster '{cluster.name}'" if call.incremental else
            f"import of the instance {format_timestamp(t)} of feed '{feed.name}' on cluster '{cluster.name}'")
    with feed_lifecycle(call.instance, context, what=what, details=LeaseDetails(time=format_timestamp(t)),
                        lock=lambda ledger: ledger.database_import_lock(feed.name, None if call.incremental else t)
                        ) as life:
        outcome = _Import(spark, call, endpoint, context, life, feed_locations(feed, cluster)).run()
    outcome.seconds = time.perf_counter() - began
    return outcome


@dataclass
class _Import:
    spark: SparkSession
    call: ImportCall
    endpoint: JdbcEndpoint
    context: RunContext
    life: Lifecycle
    where: FeedLocations
    book: ImportBook = field(init=False)
    published: bool = False  # the rows are in place: what fails after it is finished by the next run

    def __post_init__(self) -> None:
        self.book = ImportBook(self.context.fs, self.life.ledger.layout, self.call.feed.name)

    @property
    def held(self) -> HeldLease:
        return self.life.lease

    def target(self, t: datetime, run_id: str) -> ImportTarget:
        catalog = (self.context.require_catalog(self.call.feed.name, self.call.cluster.name)
                   if self.where.is_table else None)
        return import_target(self.call.feed, self.where, t, self.context.fs, catalog, run_id)

    def run(self) -> ImportOutcome:
        call = self.call
        finished = self._finish_pending() if call.incremental else None
        previous = self.book.instances.read(call.time)
        if previous is not None and previous.status is Status.SUCCEEDED and not call.force:
            raise SkippedError(f"The instance {previous.time} of feed '{call.feed.name}' on cluster "
                               f"'{call.cluster.name}' was imported by run {previous.run_id} ({previous.ended}"
                               f"{f', {previous.rows} rows' if previous.rows is not None else ''})"
                               f"{'; ' + finished if finished else ''}: give --force to import it again.")
        with database_session(self.spark, self.endpoint) as database:
            source = source_table(database, call.table, call.owner)
            if source is None:
                raise UsageError(f"{call.owner[0].upper()}{call.owner[1:]}: the table does not exist in "
                                 f"{self.endpoint.shown_url}; check import.source.tableName.")
            settings = self._read_settings(database, source)
            rows, advances = self._plan(database, source, previous)
            outcome = self._import(database, source, rows, advances, settings)
        outcome.finished = finished
        outcome.took_over = describe_holder(self.held.previous) if self.held.previous is not None else None
        return outcome

    def _read_settings(self, database: DatabaseSession, source: SourceTable) -> ReadSettings:
        """How the table is read (checked before anything is written): the import's arguments, the split column
        its primary key when more than one slice names none."""
        call = self.call
        given = ReadSettings.of(call.policy.arguments, call.owner)
        if ignored := sorted(set(call.policy.arguments) - set(ARGUMENTS)):
            say(f"the arguments {', '.join(ignored)} of feed '{call.feed.name}' are Sqoop's and not read by the import")
        settings = with_split_column(database, source, given)
        if given.split_by is None and settings.split_by is not None:
            say(f"reading table '{call.table}' in up to {settings.mappers} slices of its primary key column "
                f"'{settings.split_by}' (the import names no arguments.split-by)")
        return settings

    # ------------------------------------------------------------------------------------------ the range
    def _plan(self, database: DatabaseSession, source: SourceTable,
              previous: ImportRecord | None) -> tuple[ImportedRange, bool]:
        """The rows to read, and whether the high-water mark moves past them once they are published."""
        call = self.call
        if not call.incremental:
            return ImportedRange(), False
        column = call.policy.arguments.get("check-column", "").strip()
        if not column:
            raise UsageError(f"{call.owner} is incremental but names no arguments.check-column (lint FD037): add the "
                             "column whose values grow with new rows.")
        if call.force and previous is not None and previous.status is Status.SUCCEEDED:
            if previous.column != column:
                raise UsageError(f"The instance {previous.time} was imported by its check column "
                                 f"'{previous.column}', the feed now names '{column}': a forced re-import reads the "
                                 "rows it read, which that column tells; import a new instance instead.")
            say(f"re-importing the rows of {previous.time} that run {previous.run_id} read ({column} past "
                f"{previous.after!r} up to {previous.up_to!r}); the high-water mark stays where it is")
            return previous.range, False
        mark = self.book.high_water.read()
        if mark is not None and mark.column != column:
            raise UsageError(f"The high-water mark of feed '{call.feed.name}' on cluster '{call.cluster.name}' is of "
                             f"column '{mark.column}', the import now names '{column}' (arguments.check-column): "
                             f"delete {self.book.high_water.path} to import the whole table again by the new column, "
                             "or name the old one.")
        after = mark.value if mark is not None else None
        rows = ImportedRange(column, after, largest(database, source, column, after) or after)
        if rows.up_to is None:  # an empty table: nothing to read, and nothing to mark
            rows = ImportedRange(column, None, None)
        self.held.check()
        self.book.pending.write(PendingRead(call.feed.name, format_timestamp(call.time), self.context.run_id,
                                            column, rows.after, rows.up_to))
        return rows, True

    # ------------------------------------------------------------------------------------------ the import
    def _import(self, database: DatabaseSession, source: SourceTable, rows: ImportedRange, advances: bool,
                settings: ReadSettings) -> ImportOutcome:
        call, context, t = self.call, self.context, self.call.time
        target = self.target(t, context.run_id)
        record = ImportRecord(call.feed.name, call.cluster.name, format_timestamp(t), context.run_id, Status.RUNNING,
                              wall_clock_stamp(context.clock.time()), call.datasource.name, call.table,
                              call.policy.source.extract.type.value, rows.column, rows.after, rows.up_to)
        self.held.check()
        self.book.instances.write(record, t)
        run = self.life.run(sql=source_query(self.endpoint.dialect, source, rows))
        on = context.lineage.enabled  # naming datasets imports OpenLineage's client: only when lineage is on
        sources = [table_use(call.datasource, self.endpoint, call.table)] if on else []
        try:
            with watched(run, sources, [DatasetUse.at(call.feed, call.cluster, [t])] if on else []):
                outcome = self._write_and_publish(database, source, target, rows, advances, settings)
        except Exception as err:  # a kill (SIGKILL, or BaseException in tests) leaves all for the next run
            self._failed(target, record, advances, err)
            raise
        quality = Written.of(GateResult, outcome.quality)
        self.book.instances.write(replace(record, status=Status.SUCCEEDED, ended=wall_clock_stamp(context.clock.time()),
                                          rows=outcome.read, files=outcome.files, bytes=outcome.bytes,
                                          location=outcome.location, quality=quality), t)
        if advances:
            self.book.drop_pending()
        if on:
            run.complete([replace(source, rows=outcome.read) for source in sources],
                         [DatasetUse.at(call.feed, call.cluster, [t], rows=outcome.read, files=outcome.files,
                                        bytes=outcome.bytes)])
        return outcome

    def _failed(self, target: ImportTarget, record: ImportRecord, advances: bool, err: Exception) -> None:
        """Nothing of an import that failed before its publication stays: its staging, its pending read. One that
        failed after it (its event or record not written) keeps its pending read, which the next run finishes.
        Its record says why."""
        with contextlib.suppress(ToolkitError):  # the error on its way says what went wrong; the next run clears
            if not self.published:
                target.discard()
                if advances:
                    self.book.drop_pending()
        self.book.instances.write(replace(record, status=Status.FAILED, error=str(err),
                                          ended=wall_clock_stamp(self.context.clock.time())), self.call.time)

    def _write_and_publish(self, database: DatabaseSession, source: SourceTable, target: ImportTarget,
                           rows: ImportedRange, advances: bool, settings: ReadSettings) -> ImportOutcome:
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        call, context = self.call, self.context
        target.clear()
        with spark_work(f"Reading table '{call.table}' into feed '{call.feed.name}'", conversion_error):
            frame = selected(read_rows(self.spark, database, source, rows, settings),
                             call.policy.source.fields, call.owner)
            frame = converted(frame, target.columns(), call.owner)
            observed = Observation("feed-toolkit-import")
            target.stage(self.spark, frame.observe(observed, F.count(F.lit(1)).alias("rows")))
            read = int(observed.get.get("rows", 0))
        target.mark(PendingRead(call.feed.name, format_timestamp(call.time), context.run_id, rows.column or "",
                                rows.after, rows.up_to, rows=read).to_bytes())
        quality = self._check(target)
        with Publication(context.fs, self.held.check) as publication:
            published = target.publish(publication)
            if advances:
                before = self.book.high_water.read()
                publication.step(lambda: self._advance(rows), lambda: self._restore(before))
        self.published = True
        fingerprint = _probe(context, self.where, call, call.time)
        event = self.life.published(self.where.event_location(call.time), fingerprint)
        return ImportOutcome(Status.SUCCEEDED, rows, read, published.files, published.bytes, published.path,
                             event.event_id if event else None, bool(published.replaced), quality=tuple(quality))

    def _check(self, target: ImportTarget) -> list[GateResult]:
        """The feed's quality gate on the staged rows: a failing `block` gate publishes nothing (exit 1)."""
        if self.call.feed.quality is None:
            return []
        from toolkit.services.quality.gate import QualityGate, require_passing, warnings_of

        results = target.check(self.spark, QualityGate(self.call.repo.root, say))
        require_passing(results)
        for warning in warnings_of(results):
            say(f"published although {warning.describe_failures()} (its on-failure is warn)")
        return results

    def _advance(self, rows: ImportedRange, run_id: str | None = None) -> None:
        """The high-water mark moved past the rows published (a step of their publication). The pending read stays
        until the import's event and record are written: a run killed before them is finished by the next."""
        if rows.up_to is not None and rows.column is not None and rows.up_to != rows.after:  # no new row: as it was
            self.book.high_water.write(HighWaterMark(rows.column, rows.up_to, format_timestamp(self.call.time),
                                                     run_id or self.context.run_id,
                                                     wall_clock_stamp(self.context.clock.time())))

    def _restore(self, mark: HighWaterMark | None) -> None:
        """The mark as it was before a publication that is undone."""
        if mark is None:
            self.book.high_water.delete()
        else:
            self.book.high_water.write(mark)

    # ------------------------------------------------------------------------------------------ after a kill
    def _finish_pending(self) -> str | None:
        """A read a killed run left pending: finished when its rows are published (the mark moved past them, its
        event and record written), else dropped; what was done, as a clause (None when nothing was pending)."""
        pending = self.book.pending.read()
        if pending is None:
            return None
        t = pending.nominal
        found = self.target(t, pending.run_id).published_marker()
        marker = PendingRead.parse(found, f"the marker of {pending.time}") if found is not None else None
        published = marker is not None and marker.run_id == pending.run_id
        self.held.check()
        if not published:
            self.book.drop_pending()
            say(f"run {pending.run_id} was killed while it imported {pending.time} and published none of it: its "
                "read is dropped and the rows are read again")
            return None
        self._advance(pending.range, pending.run_id)
        call, context = self.call, self.context
        fingerprint = _probe(context, self.where, call, t)
        self.life.published(self.where.event_location(t), fingerprint, unless_recorded=True, run_id=pending.run_id,
                            at=t)
        record = self.book.instances.read(t)
        if record is not None and record.status is not Status.SUCCEEDED:
            ended = wall_clock_stamp(context.clock.time())
            self.book.instances.write(replace(record, status=Status.SUCCEEDED, ended=ended, error=None,
                                              rows=marker.rows if marker else None), t)
        self.book.drop_pending()
        finished = (f"run {pending.run_id} had published {pending.time} before it was killed: its high-water mark "
                    f"({pending.column} up to {pending.up_to!r}) is committed now")
        say(finished)
        return finished


def _probe(context: RunContext, where: FeedLocations, call: ImportCall, t: datetime) -> Fingerprint | None:
    state = probe_instance(context.fs, where, call.feed.availability_flag,
                           lambda: context.require_catalog(call.feed.name, call.cluster.name), t)
    return state.fingerprint
