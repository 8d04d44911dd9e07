"""Monthly roll-ups: the closed instances of a process in one month, in one file.

    <ledger>/processes/<process>/rollups/<yyyyMM>.json.gz

A year of hourly instances is 8,760 instance folders per process, each with its instance record and an attempt
record: a listing of the process grows with its whole history, and a ledger of 1,000 such processes needs some
26 million files (an HDFS namenode keeps every one in its heap). `toolkit ledger-rollup` (rollups.py) moves the
closed instances (a terminal status, no run holding them) of months gone by into one file per month, one JSON
object (a format version, and per instance key its instance record, its attempts and its late checks), gzipped
(records repeat their field names: a month of hourly records shrinks about tenfold), and then deletes their
folders.

Readers see one ledger: an instance folder wins over the roll-up for what it holds (a rerun of a rolled-up
instance writes a folder again, so its new state is what every reader sees), attempts are the union of both by
number (the folder's win), late checks are the folder's when it has them. Readers look at the folder first and at
the roll-up after, and the roll-up is written before the folders are deleted, so a reader racing a roll-up finds
every instance in one place or the other.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from toolkit.el.timestamps import instance_key, parse_instance_key
from toolkit.ledger.layout import LedgerLayout
from toolkit.ledger.records import (
    AttemptRecord,
    CorruptRecordError,
    InstanceRecord,
    LateCheck,
    check_format,
    parse_json,
    record_document,
    record_from,
    versioned,
)
from toolkit.storage.filesystem import FileSystem

ROLLUP_FORMAT = 1
SUFFIX = ".json.gz"


@dataclass(frozen=True)
class RolledUp:
    """One instance as a roll-up holds it."""

    instance: InstanceRecord
    attempts: tuple[AttemptRecord, ...] = ()
    late_checks: tuple[LateCheck, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"instance": record_document(self.instance),
                "attempts": [record_document(attempt) for attempt in self.attempts],
                "late_checks": [record_document(check) for check in self.late_checks]}


@dataclass
class MonthRollup:
    """A process's roll-up of one month; instances keyed by `yyyyMMddTHHmmZ`, parsed when asked for."""

    process: str
    month: str  # yyyyMM
    path: str
    documents: dict[str, Any] = field(default_factory=dict)

    def instance(self, t: datetime) -> InstanceRecord | None:
        """Only the instance record (what `toolkit status` reads, a month of rows at a time)."""
        document = self.documents.get(instance_key(t))
        if document is None:
            return None
        if not isinstance(document, dict) or "instance" not in document:
            raise CorruptRecordError(self.path, f"the instance {instance_key(t)} is not a rolled-up instance")
        record: InstanceRecord = record_from(InstanceRecord, document["instance"], self.path)
        return record

    def get(self, t: datetime) -> RolledUp | None:
        document = self.documents.get(instance_key(t))
        if document is None:
            return None
        try:
            return RolledUp(record_from(InstanceRecord, document["instance"], self.path),
                            tuple(record_from(AttemptRecord, item, self.path) for item in document["attempts"]),
                            tuple(record_from(LateCheck, item, self.path) for item in document["late_checks"]))
        except (KeyError, TypeError) as err:
            raise CorruptRecordError(self.path, f"the instance {instance_key(t)} is not a rolled-up instance: "
                                                f"{err}") from None

    def times(self) -> set[datetime]:
        return {t for t in map(parse_instance_key, self.documents) if t is not None}

    def with_instances(self, instances: dict[datetime, RolledUp]) -> MonthRollup:
        """This roll-up with `instances` added, replacing what it held for them."""
        documents = dict(self.documents)
        documents.update({instance_key(t): item.to_json() for t, item in instances.items()})
        return MonthRollup(self.process, self.month, self.path, documents)

    def to_bytes(self) -> bytes:
        document = versioned({"process": self.process, "month": self.month,
                              "instances": dict(sorted(self.documents.items()))}, ROLLUP_FORMAT)
        return compressed((json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n").encode())


def compressed(data: bytes) -> bytes:
    """gzip at its fastest level (no name, no time: the same roll-up is the same bytes)."""
    return gzip.compress(data, compresslevel=1, mtime=0)


def month_of(t: datetime) -> str:
    return f"{t:%Y%m}"


def read_rollup(fs: FileSystem, layout: LedgerLayout, process: str, month: str) -> MonthRollup:
    """The month's roll-up of the process (empty when there is none)."""
    path = layout.rollup_record(process, month)
    data = fs.read_if_exists(path)
    if data is None:
        return MonthRollup(process, month, path)
    try:
        data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as err:
        raise CorruptRecordError(path, f"not a gzip file: {err}") from None
    document = parse_json(data, path)
    if not isinstance(document, dict):
        raise CorruptRecordError(path, "it is not a JSON object")
    check_format(document, path, ROLLUP_FORMAT)
    instances = document.get("instances")
    if not isinstance(instances, dict) or document.get("process") != process or document.get("month") != month:
        raise CorruptRecordError(path, f"not the roll-up of process '{process}' for {month}")
    return MonthRollup(process, month, path, instances)


def rolled_months(fs: FileSystem, layout: LedgerLayout, process: str) -> list[str]:
    """The months (yyyyMM) the process has roll-ups of, oldest first."""
    folder = layout.rollup_folder(process)
    if not fs.exists(folder):
        return []
    names = (status.name for status in fs.list(folder) if not status.is_dir)
    return sorted(name[:6] for name in names if name.endswith(SUFFIX) and name[:6].isdigit() and len(name) == 14)
