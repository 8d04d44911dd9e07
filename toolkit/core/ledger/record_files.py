"""Record files of the ledger: one JSON record per file, read checked against its class's shape (a damaged file
is a `CorruptRecordError` naming it) and written whole or not at all. `RecordFile` is one file (a stream's
epoch, the landing marks); `InstanceRecords` one file per feed instance in a folder, `<yyyyMMddTHHmmZ>.json` (a
closing's verdict, a compaction's progress). An action keeping a new kind of record needs its dataclass and one
of these, not a book of its own."""

from __future__ import annotations

from datetime import datetime
from typing import Generic, TypeVar

from toolkit.core.el.timestamps import instance_key
from toolkit.core.ledger.records import parse_record, to_json
from toolkit.core.storage.filesystem import FileSystem

R = TypeVar("R")


class RecordFile(Generic[R]):
    """The record of `kind` at `path`."""

    def __init__(self, fs: FileSystem, path: str, kind: type[R]) -> None:
        self.fs, self.path, self.kind = fs, path, kind

    def read(self) -> R | None:
        """The record, or None when there is none yet."""
        data = self.fs.read_if_exists(self.path)
        if data is None:
            return None
        record: R = parse_record(self.kind, data, self.path)
        return record

    def write(self, record: R) -> None:
        """Replaces the record at once: a reader sees the old one or the new one."""
        self.fs.write_atomically(self.path, to_json(record))

    def delete(self) -> None:
        """No record any more (none is no error)."""
        self.fs.delete(self.path, recursive=False)


class InstanceRecords(Generic[R]):
    """The records of `kind` in `folder`, one per instance of a feed."""

    def __init__(self, fs: FileSystem, folder: str, kind: type[R]) -> None:
        self.fs, self.folder, self.kind = fs, folder, kind

    def path(self, t: datetime) -> str:
        return f"{self.folder}/{instance_key(t)}.json"

    def file(self, t: datetime) -> RecordFile[R]:
        return RecordFile(self.fs, self.path(t), self.kind)

    def read(self, t: datetime) -> R | None:
        return self.file(t).read()

    def write(self, record: R, t: datetime) -> None:
        self.file(t).write(record)
