"""Compaction, Hive's compactor for streamed data: a closed instance's many batch files (`part-*`, one per
micro-batch) are rewritten into ceil(bytes / target) files of the same format, with the same rows.

Closed means: the feed's availability flag is in the folder, the instance's last dataset event is `published` or
`replaced` (not evicted), and the ingest book does not list it open (a late record reopens it until ingest closes
it again). An instance that is not closed waits (exit 3): ingest may still write into it, or its quality gate
held it back (closing_gate.py).

No reader ever sees a mix of old and new files. The compacted files are written into a sibling folder
`<instance>.compacting-<run id>` (same parent: both renames stay in one directory), with the flag and every
file that is no batch file carried over; their rows are checked against the batch files' (count and the sum of
xxhash64 over all columns) before anything moves. Then the instance folder is renamed to
`<instance>.compacted-old-<run id>` and the new folder renamed to the instance. Between the two renames the
instance is absent, flag included: a reader finds it not published yet and waits, as before its first
publication. The sibling names parse as no instance, so retention and the other actions never take them for one.

Every step is recorded first (compaction_record.py: planned, swapped, done), so a run killed anywhere is finished
by the next: planned with the old folder not moved, the new folder is discarded and the compaction done anew;
the old folder moved away and the new one not in place, the new one is put in place (it was checked; late
batch files that an ingest run wrote at the instance's path meanwhile, once the killed run's lease expired, are
moved into it first); both renames done, the old folder is deleted. The feed's ingest lock is held throughout,
so no ingest run writes a late file into the instance mid-swap (a second caller is told who holds it, exit 5).
After the swap the new content is recorded as a `replaced` dataset event (producer `compaction`, the new files'
fingerprint): the same rows in new files, which consumers and lineage see like any other replacement."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from toolkit.actions.ingest.closing_record import BLOCKED, ClosingBook
from toolkit.actions.ingest.compaction_record import DONE, PLANNED, SWAPPED, CompactionBook, CompactionRecord
from toolkit.clock import Clock
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.sizes import parse_size
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import FeedLocations, feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.ingest_book import IngestBook
from toolkit.core.ledger.layout import require_apart_from_working
from toolkit.core.ledger.records import EVICTED, PublicationFacts, wall_clock_stamp
from toolkit.core.ledger.run_locks import HeldLease
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileStatus, FileSystem, StorageError
from toolkit.core.storage.tree import hidden
from toolkit.errors import SkippedError, ToolkitError, UsageError, WaitingError
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, feed_lifecycle
from toolkit.services.runtime.lineage import recorded_fingerprint, watched
from toolkit.services.runtime.run_context import RunContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from toolkit.actions.ingest.call import IngestCall

COMPACTION = ActionKind(name="compaction", script="compact", job="compact", producer="compaction")
TARGET_PROPERTY = "compaction.target-size"
DEFAULT_TARGET = 128 * 1024 ** 2


@dataclass(frozen=True)
class CompactionResult:
    record: CompactionRecord
    resumed: bool  # finished what a killed run had swapped

    def counters(self) -> dict[str, Any]:
        r = self.record
        return {"instance": r.instance, "files_before": r.files_before, "files_after": r.files_after,
                "bytes_before": r.bytes_before, "bytes_after": r.bytes_after, "rows": r.rows,
                "resumed": self.resumed}


def target_size(feed: Feed) -> int:
    """The feed's `compaction.target-size` in bytes (`134217728`, `128MB`; units of 1024), else 128 MB."""
    text = feed.properties.get(TARGET_PROPERTY)
    if text is None:
        return DEFAULT_TARGET
    size = parse_size(text) or 0
    if size <= 0:
        raise UsageError(f"The property {TARGET_PROPERTY} of feed '{feed.name}' is {text!r}: give a positive number "
                         "of bytes, or one with a unit (KB, MB, GB, TB), such as 128MB.")
    return size


def compaction_call(repo: ConfigRepo, feed_name: str, cluster_name: str, t: datetime) -> FeedCall:
    """The call, checked without Spark: a streamed file feed on the cluster (exit 2), `t` one of its instances
    (exit 2) inside its validity (exit 4), a valid target size (exit 2)."""
    feed, cluster = repo.feed(feed_name), repo.cluster(cluster_name)
    require_on_cluster(feed, cluster.name)
    require_apart_from_working(feed, cluster)
    if feed.ingest is None:
        raise UsageError(f"The feed '{feed.name}' has no ingest section: compaction rewrites the batch files of "
                         "streamed feeds only; compact a feed that ingest writes.")
    if feed.table_on(cluster.name) is not None:
        raise UsageError(f"The feed '{feed.name}' is a table on cluster '{cluster.name}': compaction of table feeds "
                         "is not built (ingest writes file feeds only); compact a file feed.")
    target_size(feed)
    return FeedCall.of(COMPACTION, repo, feed, cluster, t)


def compact_instance(spark: SparkSession, call: FeedCall, context: RunContext) -> CompactionResult:
    """Compact the closed instance of the call (or finish a killed run's compaction of it), in the lifecycle of
    every feed action (services/runtime/lifecycle.py: switches, the feed's ingest lock, the failure notice). Lineage: a
    compaction (not the finishing of a killed one's, not a call that waits or finds nothing to compact) is a run
    of `compact.<feed>` that reads the instance and writes it again."""
    feed, cluster, t, fs = call.feed, call.cluster, call.nominal, context.fs
    where = feed_locations(feed, cluster)

    def paths() -> None:  # its renames and new files stay where it says
        fs.protect(where.root)
        fs.refuse_links_below(where.root, where.event_location(t))

    with feed_lifecycle(call, context, lock=lambda ledger: ledger.ingest_lock(feed.name), before_lease=paths,
                        what=f"ingest of feed '{feed.name}' on cluster '{cluster.name}'") as life:
        job = _Compaction(fs, CompactionBook(fs, life.ledger.layout, feed.name), where, feed, life.published,
                          context.clock)
        found = job.book.read(t)
        if found is not None and found.state == PLANNED:
            found = _finish_planned(job, found, life.lease)
        if found is not None and found.state == SWAPPED:
            return CompactionResult(_complete(job, found, t), resumed=True)
        _require_closed(fs, life.ledger, feed, where, t)
        files = _batch_files(fs, feed, where, t)
        run = life.run()
        read = [_instance_use(fs, feed, cluster, t)] if context.lineage.enabled else []
        with watched(run, read, read):
            record = _compact(spark, job, context.run_id, t, life.lease, files)
        if context.lineage.enabled:
            run.complete(read, [_instance_use(fs, feed, cluster, t, rows=record.rows, files=record.files_after,
                                              bytes=record.bytes_after)])
        return CompactionResult(record, resumed=False)


def _instance_use(fs: FileSystem, feed: Feed, cluster: Cluster, t: datetime, **written: Any) -> DatasetUse:
    """The instance as its newest dataset event recorded it: before the compaction what is read, after it what
    was written (the same rows in new files)."""
    return DatasetUse.at(feed, cluster, [t], {t: recorded_fingerprint(fs, feed, cluster, t)}, **written)


def finish_unfinished(call: IngestCall) -> list[datetime]:
    """Finish the compactions killed runs left half done, before the ingest `call` writes (it holds the same lock,
    its `lease`): a late record must not recreate an instance folder between a killed compaction's two renames,
    where readers would find only that record. Returns the instances whose swap was finished; their `replaced`
    events name the ingest run and its definition (the same feed's)."""
    fs, ledger, feed, where = call.fs, call.ledger, call.feed, call.where
    book = CompactionBook(fs, ledger.layout, feed.name)

    def published(t: datetime) -> _Publishes:
        def record(location: str, fingerprint: Fingerprint | None, *, unless_recorded: bool = False) -> object:
            return ledger.record_publication(PublicationFacts(feed.name, where.cluster, t, producer=COMPACTION.producer,
                                                              run_id=call.run_id, location=location,
                                                              fingerprint=fingerprint, definition=call.definition),
                                             unless_recorded=unless_recorded)
        return record

    finished = []
    for t in book.unfinished():
        found = book.read(t)
        job = _Compaction(fs, book, where, feed, published(t), call.clock)
        if found is not None and found.state == PLANNED:
            found = _finish_planned(job, found, call.lease)
        if found is not None and found.state == SWAPPED:
            _complete(job, found, t)
            finished.append(t)
        else:  # nothing was swapped (the instance is as it was) or it is done: the next compaction starts afresh
            book.forget(t)
    return finished


def _require_closed(fs: FileSystem, ledger: Ledger, feed: Feed, where: FeedLocations, t: datetime) -> None:
    location = where.event_location(t)
    owner = f"The instance {format_timestamp(t)} of feed '{feed.name}' on cluster '{where.cluster}'"
    still_open = format_timestamp(t) in IngestBook(fs, ledger.layout, feed.name, where.cluster).instances().open
    closings = ClosingBook(fs, ledger.layout, feed.name)
    closing = closings.read(t) if still_open else None
    if closing is not None and closing.state == BLOCKED:
        raise WaitingError(f"{owner} failed a blocking quality suite when ingest run {closing.run_id} closed it "
                           f"(its closing record {closings.path(t)}): compact it once its data passes and ingest "
                           "closes it.")
    if feed.availability_flag and not fs.exists(f"{location}/{feed.availability_flag}"):
        raise WaitingError(f"{owner} is not closed yet ({location}/{feed.availability_flag} does not exist): "
                           "compact it after ingest closes it.")
    events = ledger.events(feed.name, t)
    if not events or events[-1].kind == EVICTED:
        raise WaitingError(f"{owner} has no publication in the ledger (not closed yet, or evicted): compact it "
                           "after ingest closes it.")
    if still_open:
        raise WaitingError(f"{owner} was written to again after it closed (late records): compact it after ingest "
                           "closes it again.")


def is_batch_file(name: str) -> bool:
    """A batch file (`part-*`) or its checksum: what compaction replaces; everything else is carried over."""
    return name.startswith("part-") or (name.startswith(".part-") and name.endswith(".crc"))


@dataclass(frozen=True)
class _Files:
    """The instance folder's listing, its batch files, their bytes and how many files they become."""

    listing: list[FileStatus]
    batch: list[FileStatus]
    total: int
    wanted: int


def _batch_files(fs: FileSystem, feed: Feed, where: FeedLocations, t: datetime) -> _Files:
    """What the instance holds; SkippedError when its batch files are no more than they would become."""
    listing = fs.list(where.event_location(t))
    batch = [s for s in listing if not s.is_dir and s.name.startswith("part-")]
    total = sum(s.length for s in batch)
    target = target_size(feed)
    wanted = max(1, math.ceil(total / target))
    if len(batch) <= wanted:
        raise SkippedError(f"The instance {format_timestamp(t)} of feed '{feed.name}' on cluster '{where.cluster}' "
                           f"holds {len(batch)} batch file(s) of {total} bytes, no more than {wanted} at the target "
                           f"size of {target} bytes ({TARGET_PROPERTY}): nothing to compact.")
    return _Files(listing, batch, total, wanted)


class _Publishes(Protocol):
    """Records the instance's new content as a dataset event (`Lifecycle.published`)."""

    def __call__(self, location: str, fingerprint: Fingerprint | None, *,
                 unless_recorded: bool = False) -> object: ...


@dataclass(frozen=True)
class _Compaction:
    """What compacting an instance of `feed` writes with: the file system, the ledger's compaction book, the
    feed's locations on the cluster, how the new content's dataset event is recorded, and the clock of the
    compaction records' stamps (the call's: RunContext.clock)."""

    fs: FileSystem
    book: CompactionBook
    where: FeedLocations
    feed: Feed
    published: _Publishes
    clock: Clock

    def now(self) -> str:
        return wall_clock_stamp(self.clock.time())


def _compact(spark: SparkSession, job: _Compaction, run_id: str, t: datetime, lease: HeldLease,
             files: _Files) -> CompactionRecord:
    fs, book, where, feed = job.fs, job.book, job.where, job.feed
    location = where.event_location(t)
    listing, batch, total, wanted = files.listing, files.batch, files.total, files.wanted
    record = CompactionRecord(feed.name, where.cluster, format_timestamp(t), run_id, PLANNED, job.now(), location,
                              f"{location}.compacting-{run_id}", f"{location}.compacted-old-{run_id}",
                              files_before=len(batch), bytes_before=total)
    book.write(record, t)
    written = _write_new(spark, fs, feed, record, [s.path for s in batch], wanted)
    for s in listing:
        if not is_batch_file(s.name):
            fs.copy(s.path, f"{record.new}/{s.name}")
    record = replace(record, files_after=len(written), bytes_after=sum(s.length for s in written),
                     written=job.now(), rows=_check_rows(spark, fs, feed, record, [s.path for s in batch],
                                                      [s.path for s in written]))
    book.write(record, t)
    lease.check()
    move_aside(fs, record)
    move_in(fs, record)
    swapped = record.moved(SWAPPED, job.now())
    book.write(swapped, t)
    return _complete(job, swapped, t)


def _read(spark: SparkSession, feed: Feed, paths: list[str]) -> DataFrame:
    schema = ", ".join(f"`{c.name}` {c.type}" for c in feed.columns)
    return spark.read.format(feed.storage_format).schema(schema).load(paths)


def _write_new(spark: SparkSession, fs: FileSystem, feed: Feed, record: CompactionRecord, batch: list[str],
               wanted: int) -> list[FileStatus]:
    """Write the rows of `batch` as `wanted` files into the new folder, named `part-<run id>-c<n>.<ext>` (a
    later compaction, after late records, takes them as batch files again)."""
    staged = f"{record.new}/_spark"
    frame = _read(spark, feed, batch)
    (frame.repartition(wanted) if wanted > 1 else frame.coalesce(1)).write.format(feed.storage_format).save(staged)
    for n, s in enumerate(sorted(s for s in fs.list(staged) if not s.is_dir and not hidden(s.name))):
        suffix = s.name[s.name.index("."):] if "." in s.name else ""
        fs.rename(s.path, f"{record.new}/part-{record.run_id}-c{n:05d}{suffix}")
    fs.delete(staged, recursive=True)
    return [s for s in fs.list(record.new) if not s.is_dir and s.name.startswith("part-")]


def _digest(frame: DataFrame) -> tuple[int, int]:
    """(rows, sum of xxhash64 over all columns): equal for the same multiset of rows, whatever the files."""
    from pyspark.sql import functions as F

    row = frame.agg(F.count(F.lit(1)), F.sum(F.xxhash64(*frame.columns).cast("decimal(38,0)"))).collect()[0]
    return int(row[0]), int(row[1] or 0)


def _check_rows(spark: SparkSession, fs: FileSystem, feed: Feed, record: CompactionRecord, batch: list[str],
                written: list[str]) -> int:
    """The rows of the batch files, once the new files are found to hold the same; else nothing moves (exit 1)."""
    before, after = _digest(_read(spark, feed, batch)), _digest(_read(spark, feed, written))
    if before != after:
        fs.delete(record.new, recursive=True)
        raise ToolkitError(f"The compacted files of {record.instance} read back {after[0]} rows (digest {after[1]}), "
                           f"its batch files hold {before[0]} (digest {before[1]}): nothing was swapped and the new "
                           "folder was removed; check the feed's columns and format, then call again.")
    return before[0]


def move_aside(fs: FileSystem, record: CompactionRecord) -> None:
    """The first rename: the instance (batch files) to the old folder; readers find the instance absent."""
    fs.rename(record.instance, record.old)


def move_in(fs: FileSystem, record: CompactionRecord) -> None:
    """The second rename: the new folder (compacted files, flag) becomes the instance."""
    fs.rename(record.new, record.instance)


def remove_old(fs: FileSystem, record: CompactionRecord) -> None:
    fs.delete(record.old, recursive=True)


def _finish_planned(job: _Compaction, record: CompactionRecord, lease: HeldLease) -> CompactionRecord | None:
    """A killed run's planned compaction: swapped once both renames are done (the second one made here when
    only the first was), or None when nothing moved yet (its new folder, perhaps half written, is removed)."""
    fs, flag = job.fs, job.feed.availability_flag
    old, present, new = fs.exists(record.old), fs.exists(record.instance), fs.exists(record.new)
    if not old:
        fs.delete(record.new, recursive=True)
        return None
    if present and new:
        _take_late_files(fs, record, flag)
        present = False
    if not present and new:
        lease.check()
        move_in(fs, record)
        return record.moved(SWAPPED, job.now())
    if present:
        return record.moved(SWAPPED, job.now())
    raise StorageError(f"A killed compaction left {record.old}, but neither {record.instance} nor {record.new}: "
                       "the compacted files are lost; rename the old folder back to the instance, remove the "
                       f"compaction record ingest/{record.feed}/compactions/ of {record.time} in the ledger, then "
                       "call again.")


def _take_late_files(fs: FileSystem, record: CompactionRecord, flag: str | None) -> None:
    """An ingest run that came after the killed run's lease expired, between its renames, wrote late batch files
    into a new instance folder (and perhaps closed it): they join the compacted files, nothing is lost. The flag
    goes first, so a reader never finds that folder flagged with fewer files; anything else in it is refused."""
    listing = fs.list(record.instance)
    strange = [s.path for s in listing if s.is_dir or not (is_batch_file(s.name) or s.name == flag)]
    if strange:
        raise StorageError(f"A killed compaction left {record.old} and {record.new}, and {record.instance} holds "
                           f"{', '.join(strange)}, which no ingest writes: keep the folder that is the instance, "
                           f"remove the others and the compaction record ingest/{record.feed}/compactions/ of "
                           f"{record.time} in the ledger, then call again.")
    if flag is not None:
        fs.delete(f"{record.instance}/{flag}", recursive=False)
    for s in listing:
        if s.name != flag:
            fs.rename(s.path, f"{record.new}/{s.name}")
    fs.delete(record.instance, recursive=False)


def _complete(job: _Compaction, record: CompactionRecord, t: datetime) -> CompactionRecord:
    """After the swap: the old folder deleted, the new content recorded (`replaced`, once), the record done."""
    fs, book, where, feed = job.fs, job.book, job.where, job.feed
    remove_old(fs, record)
    state = probe_instance(fs, where, feed.availability_flag, _no_catalog, t)
    job.published(record.instance, state.fingerprint,
                  unless_recorded=True)
    done = record.moved(DONE, job.now())
    book.write(done, t)
    return done


def _no_catalog() -> Catalog:
    raise UsageError("A file feed's instances need no metastore.")

