"""The ledger's records of the database import and export (toolkit/actions/database_import/,
toolkit/actions/database_export/):

    <working>/ledger/imports/<feed>/<yyyyMMddTHHmmZ>.json   an import of an instance: its run, state and what it read
    <working>/ledger/imports/<feed>/high-water.json         an incremental import's committed high-water mark
    <working>/ledger/imports/<feed>/pending.json            the read an incremental import is publishing
    <working>/ledger/exports/<feed>/<yyyyMMddTHHmmZ>.json   an export of an instance: its run, state and target

An incremental import reads the rows whose check column is past the high-water mark and up to the largest value
it found when it planned; it writes that range as `pending.json` before it reads, beside the rows it stages as
`_toolkit_import.json` (a hidden file, which no reader of the feed lists), advances the mark in the same
publication that swaps the rows into place, and drops the pending read once its dataset event and record are
written. A run killed after the swap leaves a pending read whose rows are published: the next run finds them by
the pending run's id and finishes the mark, the event and the record for them; a pending read whose rows are not
published is dropped and read again. So no row is skipped or imported twice.

Values of the check column are kept as the database spells them (a number as its driver reads it, another value
`CAST(MAX(c) AS TEXT)`) and compared again as literals of the column's type (toolkit/core/storage/jdbc/dialect.py): the
database reads back exactly what it wrote, whatever its type."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.record_files import InstanceRecords, RecordFile
from toolkit.core.ledger.records import Minute, Stamp, Written, nothing_written, parse_record, record_time, to_json
from toolkit.core.storage.filesystem import FileSystem
from toolkit.statuses import Status

TRANSFER_STATUSES = (Status.RUNNING, Status.SUCCEEDED, Status.FAILED, Status.KILLED)
EXTRACT_TYPES = ("full", "incremental")
MARKER = "_toolkit_import.json"  # beside an imported instance's rows: the read they hold


@dataclass(frozen=True)
class ImportedRange:
    """The rows an import reads: `column` past `after` (None: from its first row) and up to `up_to` (None: the
    table has no row); a full import reads every row and has no column."""

    column: str | None = None
    after: str | None = None
    up_to: str | None = None


@dataclass(frozen=True)
class ImportRecord:
    """An import of one instance of a feed on a cluster: the run, its state, the table and the range it read, and
    what it published."""

    feed: str
    cluster: str
    time: Minute
    run_id: str
    status: Annotated[Status, TRANSFER_STATUSES]
    started: Stamp
    datasource: str
    table: str
    extract: Annotated[str, EXTRACT_TYPES]
    column: str | None = None
    after: str | None = None
    up_to: str | None = None
    ended: Stamp | None = None
    rows: int | None = None
    files: int | None = None
    bytes: int | None = None
    location: str | None = None
    error: str | None = None
    quality: Written[GateResult] = field(default_factory=nothing_written(GateResult))

    @property
    def nominal(self) -> datetime:
        return record_time(self.time)

    @property
    def range(self) -> ImportedRange:
        return ImportedRange(self.column, self.after, self.up_to)


@dataclass(frozen=True)
class HighWaterMark:
    """The largest value of the check column an incremental import published, as the database spells it, and
    the instance and run that published it."""

    column: str
    value: str
    time: Minute
    run_id: str
    committed: Stamp


@dataclass(frozen=True)
class PendingRead:
    """The range an incremental import's run is reading and publishing for an instance (pending.json, and the
    marker beside the rows it stages)."""

    feed: str
    time: Minute
    run_id: str
    column: str
    after: str | None
    up_to: str | None
    rows: int | None = None  # the marker's: how many rows were staged (pending.json has none)

    @property
    def nominal(self) -> datetime:
        return record_time(self.time)

    @property
    def range(self) -> ImportedRange:
        return ImportedRange(self.column, self.after, self.up_to)

    def to_bytes(self) -> bytes:
        return to_json(self)

    @classmethod
    def parse(cls, data: bytes, path: str) -> PendingRead:
        read: PendingRead = parse_record(cls, data, path)
        return read


@dataclass(frozen=True)
class ExportRecord:
    """An export of one instance of a feed on a cluster into a database table: the run, its state, the instance
    it read, the staging table it wrote and how the rows were loaded."""

    feed: str
    cluster: str
    time: Minute
    run_id: str
    status: Annotated[Status, TRANSFER_STATUSES]
    started: Stamp
    datasource: str
    table: str
    load: str
    staging: str
    source: str | None = None
    ended: Stamp | None = None
    rows: int | None = None
    error: str | None = None


class ImportBook:
    """An imported feed's records in a cluster's ledger."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout, feed: str) -> None:
        folder = layout.transfer_folder("imports", feed)
        self.instances = InstanceRecords(fs, folder, ImportRecord)
        self.high_water = RecordFile(fs, f"{folder}/high-water.json", HighWaterMark)
        self.pending = RecordFile(fs, f"{folder}/pending.json", PendingRead)

    def drop_pending(self) -> None:
        self.pending.delete()


class ExportBook:
    """An exported feed's records in a cluster's ledger."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout, feed: str) -> None:
        self.instances = InstanceRecords(fs, layout.transfer_folder("exports", feed), ExportRecord)
