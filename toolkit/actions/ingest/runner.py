"""The ingest run: the landing folder is scanned by the toolkit (landing.py: each file by name, length, time and a
fingerprint, tracked in the ledger), its files read in bounded micro-batches by the toolkit's line reader
(core/storage/landing_lines.py: any size, split over tasks, byte offsets), each batch parsed (records.py), assigned
to feed instances, staged and committed (commit.py), its landing files moved out to `_ingested/`; then the
instances the watermark has passed are closed (closing.py), once they pass the feed's data-quality suites if it
declares any (closing_gate.py).

`once` (the default): everything in the landing folder now, in micro-batches, then exit, for cron; else new
files are taken for `seconds`, polling each second. One run at a time per feed and cluster: a second is told who
holds the ingest lock (exit 5). Landing files are taken only when complete: names starting with `.` or `_` are
not read, so a producer writes `.clicks-0001.csv` (or elsewhere) and renames it into place.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from toolkit.actions.ingest.call import IngestCall
from toolkit.actions.ingest.checkpoint_adoption import adopt_checkpoint
from toolkit.actions.ingest.closing import close_due
from toolkit.actions.ingest.commit import commit_batch
from toolkit.actions.ingest.compaction import finish_unfinished
from toolkit.actions.ingest.landing import expire_ingested, next_batch, scan, settle, with_tails
from toolkit.actions.ingest.lineage_uses import batch_uses
from toolkit.actions.ingest.overlaps import require_apart
from toolkit.actions.ingest.placement import INSTANCE, from_micros, micros, placement
from toolkit.actions.ingest.targets import FileTargets, TableTargets, Targets
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.ingest_settings import ingest_settings
from toolkit.core.entities.model import LateRecords, quality_gates
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations, under_root
from toolkit.core.instances.grids import feed_grid, require_on_cluster
from toolkit.core.ledger.ingest_book import PLANNED, BatchFile, IngestBatch, IngestBook, LandingBook, Source
from toolkit.core.ledger.layout import require_apart_from_working, working_root
from toolkit.core.ledger.records import record_stamp, wall_clock_stamp
from toolkit.core.storage.catalog import Catalog
from toolkit.errors import ToolkitError, UsageError
from toolkit.services.openlineage.facts import RunSubject
from toolkit.services.openlineage.run import RunLineage
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, feed_lifecycle
from toolkit.services.runtime.lineage import failure, watched
from toolkit.services.runtime.run_context import RunContext

if TYPE_CHECKING:
    from pyspark.sql import Column as SparkColumn
    from pyspark.sql import DataFrame, SparkSession

    from toolkit.actions.ingest.closing_gate import QualityClosing
    from toolkit.core.ledger.quality_results import GateResult

_EXTENSIONS = {"parquet": ".parquet", "orc": ".orc", "json": ".json", "csv": ".csv"}
_FOOTERS = ("parquet", "orc")  # formats whose files say how many rows they hold
_EMPTY_RELATION = "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"


@dataclass
class IngestResult:
    feed: str
    cluster: str
    epoch: str = ""
    batches: int = 0
    replayed: int = 0  # batches found committed or planned by a killed run
    records: int = 0
    rejected: int = 0
    instances: set[str] = field(default_factory=set)
    closed: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # refused by a `block` gate in this call: not published
    held: list[str] = field(default_factory=list)  # refused by an earlier call, unchanged: not checked again
    quality: list[GateResult] = field(default_factory=list)  # every gate result of this call
    moved: int = 0  # landing files moved to _ingested after their batch committed
    left: list[str] = field(default_factory=list)  # landing files that grew while read: the rest is read next
    refused: list[str] = field(default_factory=list)  # landing files refused in the dead letters (links...)
    folders: list[str] = field(default_factory=list)  # folders in the landing folder, which are not read
    expired: list[str] = field(default_factory=list)  # _ingested/<day> folders deleted after their retention

    def counters(self) -> dict[str, Any]:
        found = {"epoch": self.epoch, "batches": self.batches, "batches_replayed": self.replayed,
                 "records": self.records, "rejected": self.rejected, "instances_written": sorted(self.instances),
                 "instances_closed": self.closed, "instances_blocked": self.blocked, "instances_held": self.held,
                 "landing_files_ingested": self.moved, "landing_files_grown": self.left,
                 "landing_files_refused": self.refused, "ingested_days_deleted": self.expired}
        if self.quality:
            from toolkit.core.ledger.quality_results import summary

            found["quality"] = summary(self.quality)
        return found


class _Batches:
    """The micro-batches of one run, one at a time."""

    def __init__(self, call: IngestCall, epoch: str, gate: QualityClosing | None, result: IngestResult) -> None:
        self.call, self.epoch, self.gate, self.result = call, epoch, gate, result
        self.definition = call.definition
        self.staging = f"{working_root(call.cluster)}/ingest/{call.feed.name}/staging"
        self.grid = feed_grid(call.feed, call.where.cluster)

    def finish_pending(self, landing: LandingBook) -> LandingBook:
        """The batch a killed run left (planned: committed from its plan, never staged again; committed: its
        landing files moved out), then the book at the next batch; a batch never planned left only staging."""
        batch_id = landing.next_batch
        found = self.call.book.batch(self.epoch, batch_id)
        if found is None:
            return landing
        self.result.replayed += 1
        if found.state == PLANNED:
            self._commit(found, found.max_time, self._lineage(batch_id))
        else:
            self.close()
        self.call.fs.delete(self._folder(batch_id), recursive=True)
        return self._settle(found, landing, frozenset(landing.file_marks))

    def run_batch(self, sources: list[Source], landing: LandingBook, present: frozenset[str]) -> LandingBook:
        """Read, stage, commit and settle one batch of landing files; the landing book after it."""
        self.call.lease.check()
        batch_id = landing.next_batch
        run = self._lineage(batch_id)
        try:
            plan, watermark = self._stage(sources, batch_id)
        except BaseException as err:  # failed before it could say what it writes: START and FAIL at once
            run.start()
            run.fail(failure(err))
            raise
        self.call.lease.check()  # again: staging is long, and a run that lost its lease meanwhile commits nothing
        done = self._commit(plan, watermark, run)
        self.result.batches += 1
        self.result.records += done.rows
        self.result.rejected += done.rejected
        self.result.instances.update(f.time for f in done.files if f.time)
        self.call.fs.delete(self._folder(batch_id), recursive=True)  # committed: nothing staged is needed any more
        return self._settle(done, landing, present)

    def _settle(self, batch: IngestBatch, landing: LandingBook, present: frozenset[str]) -> LandingBook:
        call = self.call
        settled = settle(call.fs, call.landing, batch, call.book, landing, present, call.clock.time())
        self.result.moved += len(settled.moved)
        self.result.left += [n for n in settled.left if n not in self.result.left]
        self.result.refused += [s.name for s in batch.sources if s.refused]
        return settled.book

    def _lineage(self, batch_id: int) -> RunLineage:
        subject = RunSubject("ingest", self.call.feed.name, instance=f"{self.epoch}-{batch_id:010d}")
        return self.call.lineage.run(subject, definition=self.definition)

    def _commit(self, plan: IngestBatch, watermark: str | None, run: RunLineage) -> IngestBatch:
        """Commit the batch, then close what its watermark passed. A batch with records for the feed is a lineage
        run (one without, whose records were all rejected, writes nothing of the feed and is none), whose output
        carries the data-quality results of the instances it closed or held back."""
        call = self.call
        if not plan.rows or not call.lineage.enabled:
            done = commit_batch(call.fs, call.book, plan, watermark, call.targets.published, root=call.where.root)
            self.close()
            return done
        with watched(run, (), batch_uses(call.fs, call.feed, call.cluster, plan)):
            done = commit_batch(call.fs, call.book, plan, watermark, call.targets.published, root=call.where.root)
            checked = self.close()
        run.complete((), batch_uses(call.fs, call.feed, call.cluster, done, committed=True, results=checked))
        return done

    def _folder(self, batch_id: int) -> str:
        """Where the batch is staged (`<working>/ingest/<feed>/staging/<epoch>-<batch>`)."""
        return f"{self.staging}/{self.epoch}-{batch_id:010d}"

    def close(self) -> list[GateResult]:
        """Close the instances the watermark has passed (after each batch, and at the end of the run) and their
        gates allow; the gates' results of this closing."""
        before = len(self.gate.results) if self.gate is not None else 0
        closed = close_due(self.call, self.gate)
        self.result.closed += [format_timestamp(t) for t in closed]
        return self.gate.results[before:] if self.gate is not None else []

    def _stage(self, sources: list[Source], batch_id: int) -> tuple[IngestBatch, str | None]:
        try:
            return self._staged_batch(sources, batch_id)
        except ToolkitError:
            raise
        except Exception as err:  # a Java error (out of memory, a file that cannot be read): one sentence
            raise reading_error(self.call.feed.name, self.call.landing, sources, err) from None

    def _staged_batch(self, sources: list[Source], batch_id: int) -> tuple[IngestBatch, str | None]:
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        from toolkit.actions.ingest.records import parse_records, typed_values
        from toolkit.core.storage.landing_lines import LineRange, read_lines

        ingest = self.call.feed.ingest
        assert ingest is not None
        folder = self._folder(batch_id)
        self.call.fs.delete(folder, recursive=True)  # a killed attempt's, which no plan names
        lines = read_lines(self.call.spark, [LineRange(f"{self.call.landing}/{s.name}", s.start, s.end)
                                        for s in sources if not s.refused],
                           split_bytes=self.call.settings.split_bytes, max_line_bytes=self.call.settings.max_line_bytes)
        now = self.call.clock.time()
        parsed = parse_records(lines, ingest, self.call.targets.columns, self.call.feed.timezone)
        watermark = self.call.book.instances().watermark
        where = placement(self.call.feed, self.grid, None if watermark is None else record_stamp(str(watermark)),
                          ingest.late_records is LateRecords.DEAD_LETTERS)
        # Not cached: at scale, building a cache of the parsed lines costs more than parsing them again (the files'
        # byte ranges are fixed, so each job reads the same lines). One job writes the batch's records, each
        # instance's into one staged file, and observes on the way whether any were rejected and the newest event
        # time (a maximum, which a retried stage cannot change); a second runs only for a batch with rejected
        # records. Counts are taken from what was written.
        placed = where.placed(parsed.checked, now, ingest.by_arrival)
        good = F.col("reason").isNull() & ~where.refused()
        seen = Observation(f"ingest batch {batch_id}")
        counted = placed.observe(seen, F.count_if(good).alias("accepted"), F.count_if(~good).alias("rejected"),
                                 F.max(F.when(good, F.unix_seconds("_time"))).alias("newest"))
        with _observable(self.call.spark):
            (counted.where(good).select(*typed_values(self.call.targets.columns), INSTANCE).repartition(INSTANCE)
             .write.partitionBy(INSTANCE).format(self.call.targets.storage_format).save(f"{folder}/data"))
        metrics = seen.get
        counts = self._counts(f"{folder}/data", placed.where(good)) if metrics["accepted"] else {}
        staged = [self._staged(folder, t, rows, batch_id) for t, rows in sorted(counts.items())]
        refusals = [s for s in sources if s.refused]
        rejected_rows = 0
        if metrics["rejected"] or refusals:
            rejected = placed.where(~good).select(
                "file", "line", "offset", F.coalesce("reason", self._refusal()).alias("reason"),
                F.col("value").alias("record"))
            if refusals:
                rejected = rejected.unionByName(self._refusals(refusals))
            rejected.coalesce(1).write.option("ignoreNullFields", "false").json(f"{folder}/rejected")
            # Counted from what was written (a JSON line per record): an observation may count a retried
            # stage's tasks twice, a file cannot.
            rejected_rows = self.call.spark.read.text(f"{folder}/rejected").count()
            staged.append(BatchFile(self._only_file(f"{folder}/rejected"), self._dead_letter(batch_id), "",
                                    rejected_rows))
        newest = metrics["newest"]
        max_time = None if newest is None or ingest.by_arrival else wall_clock_stamp(newest)
        stamp = wall_clock_stamp(now)
        plan = IngestBatch(self.call.feed.name, self.call.where.cluster, self.epoch, batch_id, self.call.run_id,
                           PLANNED, stamp,
                           staged, sum(counts.values()), rejected_rows, max_time,
                           sources, self.definition)
        return plan, stamp if ingest.by_arrival else max_time

    def _counts(self, folder: str, good: DataFrame) -> dict[datetime, int]:
        """Each staged instance's rows: from the files just written when their footers hold the count (parquet,
        orc: no data read again), else counted again from the batch (a csv row of one null column is an empty
        line, which a reader skips)."""
        if self.call.targets.storage_format in _FOOTERS:
            reader = self.call.spark.read.schema(f"{INSTANCE} bigint")
            good = reader.format(self.call.targets.storage_format).load(folder)
        return {from_micros(row[0]): row[1] for row in good.groupBy(INSTANCE).count().collect()}

    def _refusals(self, refused: list[Source]) -> DataFrame:
        """A dead letter per landing file refused unread (a symbolic link, a file that cannot be read)."""
        rows = [(f"{self.call.landing}/{s.name}", None, None, s.refused, None) for s in refused]
        schema = "file string, line bigint, offset bigint, reason string, record string"
        return self.call.spark.createDataFrame(rows, schema)

    def _refusal(self) -> SparkColumn:
        """Why a parsed record is refused: its time is in no instance, or its instance is closed."""
        from pyspark.sql import functions as F

        feed, cluster = self.call.feed.name, self.call.where.cluster
        return F.when(F.col(INSTANCE).isNull(), F.concat(
            F.lit("the record's time "), F.date_format("_time", "yyyy-MM-dd'T'HH:mm:ssXXX"),
            F.lit(f" is in no instance of feed '{feed}' on cluster '{cluster}' (outside its "
                  "validity there)"))).otherwise(F.lit(
                      f"its instance of feed '{feed}' is closed, and its ingest.late-records is "
                      "dead-letters"))

    def _staged(self, folder: str, t: datetime, rows: int, batch_id: int) -> BatchFile:
        staged = self._only_file(f"{folder}/data/{INSTANCE}={micros(t)}")
        extension = _EXTENSIONS.get(self.call.targets.storage_format, "")
        target = f"{self.call.targets.folder(t)}/part-{self.epoch}-{batch_id:010d}{extension}"
        return BatchFile(staged, target, format_timestamp(t), rows)

    def _only_file(self, folder: str) -> str:
        written = [s.path for s in self.call.fs.list(folder)
                   if not s.is_dir and not s.name.startswith((".", "_"))]
        if len(written) != 1:
            raise ToolkitError(f"Spark wrote {len(written)} files into {folder}, where the ingest expects one per "
                               "instance: check that spark.sql.files.maxRecordsPerFile is not set for ingest.")
        return written[0]

    def _dead_letter(self, batch_id: int) -> str:
        ingest = self.call.feed.ingest
        assert ingest is not None
        folder = under_root(self.call.where.root, ingest.dead_letters)
        return f"{folder}/{self.call.feed.name}-{self.epoch}-{batch_id:010d}.json"


@contextmanager
def _observable(spark: SparkSession) -> Iterator[None]:
    """A job whose observation survives a batch without a row for the feed: when no row reaches the shuffle,
    Spark's adaptive execution replaces the rest of the plan by an empty relation, the observation's node with it,
    and `Observation.get` fails (Spark 4.0: `AssertionError` in `toPyRow`). That one rule is left out for the
    job; the session's own exclusions are kept and restored."""
    key = "spark.sql.adaptive.optimizer.excludedRules"
    before = spark.conf.get(key, None)
    spark.conf.set(key, ",".join(filter(None, (before, _EMPTY_RELATION))))
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


def _read_landing(batches: _Batches, current: LandingBook, seconds: float | None) -> None:
    """Batches of what the landing folder holds until it holds nothing new (`seconds` None), or polled each second
    for `seconds`. A file is read once per pass: one that keeps growing waits for the next pass (or call)."""
    from functools import partial

    from toolkit.core.storage.landing_lines import tail_fingerprints

    call, clock = batches.call, batches.call.clock
    fingerprints = partial(tail_fingerprints, call.spark)
    deadline = None if seconds is None else clock.time() + seconds
    read: set[str] = set()
    while True:
        found = scan(call.fs, call.landing, current, fingerprints)
        batches.result.folders = list(found.folders)
        todo = [s for s in found.sources if s.name not in read]
        if todo:
            chosen = with_tails(next_batch(todo, call.settings), call.landing, fingerprints)
            current = batches.run_batch(chosen, current, found.present)
            read.update(s.name for s in chosen)
            continue
        if deadline is None or clock.time() >= deadline:
            return
        read.clear()
        clock.sleep(max(0.0, min(1.0, deadline - clock.time())))


def reading_error(feed: str, landing: str, sources: list[Source], err: BaseException) -> ToolkitError:
    """One sentence for a batch that Spark could not read: what it was reading and the setting to change."""
    from toolkit.core.storage.java_errors import first_line, java_error

    names, _ = java_error(err)
    files = ", ".join(s.name for s in sources[:3]) + (f" and {len(sources) - 3} more" if len(sources) > 3 else "")
    if "OutOfMemoryError" in names or "OutOfMemoryError" in str(err):
        return ToolkitError(f"Spark ran out of memory reading the landing files {files} of feed '{feed}' in "
                            f"{landing}: give it more (spark.driver.memory, spark.executor.memory) or lower the "
                            "feed's ingest.max-bytes-per-batch, ingest.split-size or ingest.max-line-size; "
                            "nothing of the batch was committed.")
    return ToolkitError(f"Spark could not read the landing files {files} of feed '{feed}' in {landing} "
                        f"({first_line(err)}): nothing of the batch was committed; the next call reads them again.")


INGEST = ActionKind("ingest", "ingest", "ingest", "ingest", on_instance=False)


def run_ingest(spark: SparkSession, repo: ConfigRepo, feed_name: str, cluster_name: str, context: RunContext, *,
               seconds: float | None = None) -> IngestResult:
    """Ingest what is in the landing folder (`seconds` None: then exit), or keep ingesting for `seconds`, in the
    lifecycle of every feed action (services/runtime/lifecycle.py: switches, the feed's ingest lease, the definition
    hashed once, a failure told to the feed's `notification`; the call's time is when it started, records carry their
    own). A table feed needs the context's `catalog` of the cluster's metastore. Lineage: a run per batch committed
    (lineage_uses.py). The context's `notifier` tells the feed's notification about instances its quality gates
    refused or warned about (closing_gate.py)."""
    fs, catalog, run_id, clock = context.fs, context.catalog, context.run_id, context.clock
    feed, cluster = repo.feed(feed_name), repo.cluster(cluster_name)
    require_on_cluster(feed, cluster.name)
    require_apart_from_working(feed, cluster)
    if feed.ingest is None:
        raise UsageError(f"The feed '{feed.name}' has no ingest section: add ingest (landing, format, dead-letters) "
                         "to stream records into it.")
    where = feed_locations(feed, cluster)
    landing = under_root(where.root, feed.ingest.landing)
    settings = ingest_settings(feed)  # a bad ingest.* property is exit 2 before the ledger is touched

    def paths() -> None:  # after the switches, before the lease: what the call refuses before it writes anything
        link = fs.first_link_below(where.root, landing)
        if link is not None:
            raise UsageError(f"The landing folder {landing} of feed '{feed.name}' (ingest.landing) goes through the "
                             f"symbolic link {link}, which the toolkit never follows: give a real folder.")
        if fs.status(landing) is None:
            raise UsageError(f"The landing folder {landing} of feed '{feed.name}' (ingest.landing) does not exist: "
                             "create it, producers drop their files there.")
        fs.protect(where.root)
        require_apart(repo, feed, cluster)
        if where.is_table and catalog is None:
            raise UsageError(f"The feed '{feed.name}' is a table on cluster '{cluster.name}': its ingest needs the "
                             "Hive metastore, run it through the spark-submit entrypoint.")

    def the_catalog() -> Catalog:
        if catalog is None:
            raise UsageError(f"The feed '{feed.name}' is stored in files: it needs no metastore.")
        return catalog

    began = datetime.fromtimestamp(clock.time(), timezone.utc).replace(second=0, microsecond=0)
    feed_call = FeedCall.of(INGEST, repo, feed, cluster, began)
    result = IngestResult(feed.name, cluster.name)
    what = f"ingest of feed '{feed.name}' on cluster '{cluster.name}'"
    with feed_lifecycle(feed_call, context, lock=lambda ledger: ledger.ingest_lock(feed.name), what=what,
                        before_lease=paths) as life:
        targets: Targets = TableTargets(feed, where, catalog) if where.is_table and catalog is not None else \
            FileTargets(feed, where)
        ledger, lease, definition = life.ledger, life.lease, feed_call.definition
        book = IngestBook(fs, ledger.layout, feed.name, cluster.name)
        call = IngestCall(spark, fs, repo, feed, cluster, where, targets, the_catalog, landing, settings, ledger,
                          book, lease, run_id, clock, context.lineage, context.notifier, definition)
        if not where.is_table:
            finish_unfinished(call)  # before any late record
        now = clock.time()
        current = book.landing() or adopt_checkpoint(
            fs, book, landing, f"{working_root(cluster)}/ingest/{feed.name}", wall_clock_stamp(now), now,
            lambda plan: commit_batch(fs, book, plan, plan.max_time, targets.published, root=where.root))
        result.epoch = current.epoch
        gate = None
        if quality_gates(feed):  # Great Expectations and the quality layer only for a feed with a suite
            from toolkit.actions.ingest.closing_gate import QualityClosing

            gate = QualityClosing(call)
        batches = _Batches(call, current.epoch, gate, result)
        current = batches.finish_pending(current)
        _read_landing(batches, current, seconds)
        if feed.ingest.by_arrival:  # the clock moves the watermark even without records
            book.write_instances(book.instances().advanced(wall_clock_stamp(clock.time())))
        batches.close()
        result.expired = expire_ingested(fs, landing, call.settings, clock.time())
    if gate is not None:
        from toolkit.actions.ingest.closing_gate import HELD
        from toolkit.actions.ingest.closing_record import BLOCKED

        result.quality, result.blocked, result.held = gate.results, gate.of_state(BLOCKED), gate.of_state(HELD)
    return result
