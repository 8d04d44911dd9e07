"""The ledger record of a compaction, `ingest/<feed>/compactions/<yyyyMMddTHHmmZ>.json`, written before any folder
moves: it names the new and the old folder, so that a run killed between the two renames is finished by the next
one (which reads the names here instead of guessing from a listing). States: `planned` (the new folder is being
written, or written and checked), `swapped` (the new folder is the instance), `done` (the old folder deleted, the
event recorded)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated

from toolkit.core.el.timestamps import instance_key, parse_instance_key
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import InstanceRecords
from toolkit.core.ledger.records import Minute, Stamp
from toolkit.core.storage.filesystem import FileSystem

PLANNED, SWAPPED, DONE = "planned", "swapped", "done"


@dataclass(frozen=True)
class CompactionRecord:
    feed: str
    cluster: str
    time: Minute
    run_id: str
    state: Annotated[str, (PLANNED, SWAPPED, DONE)]
    written: Stamp
    instance: str  # the instance folder readers read
    new: str  # `<instance>.compacting-<run id>`: the compacted files, the flag and the carried-over files
    old: str  # `<instance>.compacted-old-<run id>`: the batch files between the two renames, until deleted
    files_before: int = 0
    bytes_before: int = 0
    files_after: int = 0
    bytes_after: int = 0
    rows: int = 0

    def moved(self, state: str, written: str) -> CompactionRecord:
        return replace(self, state=state, written=written)


class CompactionBook(InstanceRecords[CompactionRecord]):
    """The compaction records of one feed in one cluster's ledger, and the markers of those not done."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout, feed: str) -> None:
        super().__init__(fs, f"{layout.ingest_folder(feed)}/compactions", CompactionRecord)

    def write(self, record: CompactionRecord, t: datetime) -> None:
        """The record; while it is not done, a marker in `unfinished/` too (made before the record, removed after
        it), so that an ingest run finds a killed compaction by listing that folder alone."""
        marker = f"{self.folder}/unfinished/{instance_key(t)}"
        if record.state != DONE:
            self.fs.create_exclusive(marker, b"")
        super().write(record, t)
        if record.state == DONE:
            self.fs.delete(marker, recursive=False)

    def unfinished(self) -> list[datetime]:
        """The instances whose compaction a killed run left (usually none), oldest first."""
        folder = f"{self.folder}/unfinished"
        if not self.fs.exists(folder):
            return []
        times = (parse_instance_key(status.name) for status in self.fs.list(folder))
        return sorted(t for t in times if t is not None)

    def forget(self, t: datetime) -> None:
        """No compaction of `t` is half done any more (its marker goes; its record stays for the next call)."""
        self.fs.delete(f"{self.folder}/unfinished/{instance_key(t)}", recursive=False)
