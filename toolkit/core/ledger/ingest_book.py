"""What ingest keeps in the ledger of the cluster it writes to, per streamed feed:

    ingest/<feed>/stream.json                  the stream: its epoch (a new one with each new checkpoint)
    ingest/<feed>/batches/<epoch>-<batch>.json  a micro-batch: planned (its staged files and their targets), then
                                                committed (every file in place)
    ingest/<feed>/instances.json               the watermark and the instances written but not closed yet
    ingest/<feed>/landing.json                 the next batch's id, and the landing files read but still there
                                               (grown since): how far each was read (landing.py)

A batch record names the landing bytes it read (`sources`): a run killed after the plan finishes the batch from
it (never staged again, so never written twice), and one killed after the commit moves those files out of the
landing folder; `landing.json` moves to the next batch only after that. Every record carries its format version.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Annotated, Any

from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import CorruptRecordError, Stamp, versioned
from toolkit.core.storage.filesystem import FileSystem

PLANNED, COMMITTED = "planned", "committed"


@dataclass(frozen=True)
class Stream:
    """A feed's stream on a cluster: `epoch` names its checkpoint and every file its batches write, so that a
    new checkpoint (whose batch ids start at 0 again) never reuses a name."""

    feed: str
    cluster: str
    epoch: str
    created: Stamp



@dataclass(frozen=True)
class BatchFile:
    """One file a micro-batch writes: staged first, then renamed to `target`, where readers see it whole.
    `time` is the feed instance it belongs to ('' for the batch's dead letters)."""

    staged: str
    target: str
    time: str
    rows: int


@dataclass(frozen=True)
class Source:
    """The bytes [start, end) of the landing file `name` that a batch read, as listed (`modified`, ms), with the
    CRC32C `tail` of up to the 64 KiB before `end` taken before the read; `refused`: why the file is not read
    but refused in the dead letters (a symbolic link, a file that cannot be read), else empty."""

    name: str
    start: int
    end: int
    modified: int
    tail: str = ""
    refused: str = ""


@dataclass(frozen=True)
class IngestBatch:
    feed: str
    cluster: str
    epoch: str
    batch_id: int
    run_id: str
    state: Annotated[str, (PLANNED, COMMITTED)]
    written: Stamp
    files: list[BatchFile] = field(default_factory=list)
    rows: int = 0
    rejected: int = 0
    max_time: Stamp | None = None  # the newest event time of the batch's records (the watermark's source)
    sources: list[Source] = field(default_factory=list)  # the landing bytes read
    definition: Provenance | None = None  # the ingesting definition (core/entities/provenance.py); older: none

    def committed(self) -> IngestBatch:
        return replace(self, state=COMMITTED)


@dataclass(frozen=True)
class InstanceBook:
    """The stream's watermark (the newest event time committed, or for arrival time the last batch's instant) and
    the instances written since they were last closed, each with the rows written into it."""

    feed: str
    cluster: str
    watermark: Stamp | None = None
    open: dict[str, int] = field(default_factory=dict)
    applied: list[str] = field(default_factory=list)  # the last batches applied (`<epoch>-<batch>`), newest last

    def with_batch(self, batch: IngestBatch, watermark: str | None) -> InstanceBook:
        """The book after `batch` (idempotent: a batch applied already changes nothing)."""
        key = f"{batch.epoch}-{batch.batch_id}"
        if key in self.applied:
            return self
        opened = dict(self.open)
        for each in batch.files:
            if each.time:
                opened[each.time] = opened.get(each.time, 0) + each.rows
        newest = max(filter(None, (self.watermark, watermark)), default=None)
        return replace(self, watermark=newest, open=opened, applied=[*self.applied, key][-100:])

    def advanced(self, watermark: str) -> InstanceBook:
        """The book with the watermark moved to `watermark` (never back)."""
        return replace(self, watermark=max(filter(None, (self.watermark, watermark))))

    def without(self, time: str) -> InstanceBook:
        return replace(self, open={t: n for t, n in self.open.items() if t != time})


@dataclass(frozen=True)
class Mark:
    """How far a landing file still in the landing folder was read: up to `offset`, whose last (up to) 64 KiB
    have the CRC32C `tail`; bytes past it are new, unless the file no longer ends so there (then it is a new
    file under the same name, read whole)."""

    offset: int
    tail: str


@dataclass(frozen=True)
class LandingBook:
    """The id of the stream's next batch, and the marks of landing files read but left in place (they grew)."""

    feed: str
    cluster: str
    epoch: str
    next_batch: int = 0
    marks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def file_marks(self) -> dict[str, Mark]:
        return {name: Mark(int(m["offset"]), str(m["tail"])) for name, m in self.marks.items()}

    def settled(self, batch_id: int, marks: dict[str, Mark]) -> LandingBook:
        """The book once batch `batch_id` is settled: the next id, and the marks of the files left in landing."""
        return replace(self, next_batch=batch_id + 1,
                       marks={name: {"offset": m.offset, "tail": m.tail} for name, m in sorted(marks.items())})


class IngestBook:
    """The ingest records of one feed in one cluster's ledger."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout, feed: str, cluster: str) -> None:
        self.fs, self.feed, self.cluster = fs, feed, cluster
        self.folder = layout.ingest_folder(feed)

    def _stream(self) -> RecordFile[Stream]:
        return RecordFile(self.fs, f"{self.folder}/stream.json", Stream)

    def stream(self) -> Stream | None:
        return self._stream().read()

    def new_stream(self, created: str) -> Stream:
        """A new epoch (the first run, or a checkpoint that is gone): written before the checkpoint exists."""
        stream = Stream(self.feed, self.cluster, uuid.uuid4().hex[:8], created)
        self._stream().write(stream)
        return stream

    def _batch(self, epoch: str, batch_id: int) -> RecordFile[IngestBatch]:
        return RecordFile(self.fs, f"{self.folder}/batches/{epoch}-{batch_id:010d}.json", IngestBatch)

    def batch(self, epoch: str, batch_id: int) -> IngestBatch | None:
        return self._batch(epoch, batch_id).read()  # each file and source checked as a record of its own

    def write_batch(self, record: IngestBatch) -> None:
        self._batch(record.epoch, record.batch_id).write(record)

    def _landing(self) -> RecordFile[LandingBook]:
        return RecordFile(self.fs, f"{self.folder}/landing.json", LandingBook)

    def landing(self) -> LandingBook | None:
        file = self._landing()
        record = file.read()
        if record is not None:
            _entries(file.path, lambda: record.file_marks, "a mark is not an offset and a tail")
        return record

    def write_landing(self, record: LandingBook) -> None:
        self._landing().write(record)

    def _instances(self) -> RecordFile[InstanceBook]:
        return RecordFile(self.fs, f"{self.folder}/instances.json", InstanceBook)

    def instances(self) -> InstanceBook:
        book = self._instances().read()
        return InstanceBook(self.feed, self.cluster) if book is None else book

    def write_instances(self, book: InstanceBook) -> None:
        document = versioned({"feed": book.feed, "cluster": book.cluster, "watermark": book.watermark,
                              "open": dict(sorted(book.open.items())), "applied": book.applied})
        self.fs.write_atomically(self._instances().path, (json.dumps(document, indent=2) + "\n").encode())


def _entries(path: str, read: Callable[[], object], what: str) -> None:
    """Read a record's nested entries once, so that a damaged one is refused where the record is read, naming it."""
    try:
        read()
    except (KeyError, TypeError, ValueError) as err:
        raise CorruptRecordError(path, f"{what}: {err}") from None
