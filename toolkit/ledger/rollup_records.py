"""Monthly roll-ups: the closed instances of a process in one month, in one file.

    <ledger>/processes/<process>/rollups/<yyyyMM>.json.gz

A year of hourly instances is 8,760 instance folders per process, each with its instance record and an attempt
record: a listing of the process grows with its whole history, and a ledger of 1,000 such processes needs some
26 million files (an HDFS namenode keeps every one in its heap). `toolkit ledger-rollup` (rollups.py) moves the
closed instances (a terminal status, no run holding them) of months gone by into one file per month, and then
deletes their folders. The file is gzipped (records repeat their field names: a month of hourly records shrinks
about tenfold) and holds lines (format 2):

    {"format_version":2,"month":"202512","process":"hourly","states":744}    the head: how many state lines follow
    20251201T0000Z {"attempts":1,"ended":...,"status":"SUCCEEDED",...}      per instance, sorted: its key, its state
    ...
    {"instances":{"20251201T0000Z":{"attempts":[...],"instance":{...},"late_checks":[...]},...}}

An instance's state (instance_states.py) is its instance record without what it read and wrote, a small part of
it, and all that `toolkit status`, `summary`, `report` and `metrics` read of a window: they decompress the head and
the state lines alone and parse the lines of the instances they ask for (a week of a month's instances is a week's
parsing). The last line holds each instance's records. The state lines are derived from it when the file is
written, in one file replaced atomically, so the two never disagree. A format 1 file (one line: the last line's
content beside the version, the process and the month) is still read; its states are derived when it is read.

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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any

from toolkit.el.timestamps import instance_key, parse_instance_key
from toolkit.ledger.instance_states import InstanceState, state_document
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

ROLLUP_FORMAT = 2
SUFFIX = ".json.gz"
_CHUNK = 16384  # compressed bytes inflated at a time while looking for the first line's end


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
        record: InstanceRecord = record_from(InstanceRecord, _instance_document(document, instance_key(t), self.path),
                                             self.path)
        return record

    def instances(self, times: Iterable[datetime]) -> dict[datetime, InstanceRecord]:
        """The instance records of those of `times` the roll-up holds."""
        found = {}
        for t in times:
            record = self.instance(t)
            if record is not None:
                found[t] = record
        return found

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
        instances = dict(sorted(self.documents.items()))
        states = "".join(_state_line(key, document, self.path) for key, document in instances.items())
        head = versioned({"process": self.process, "month": self.month, "states": len(instances)}, ROLLUP_FORMAT)
        return compressed(f"{_json(head)}\n{states}{_json({'instances': instances})}\n".encode())


@dataclass
class MonthStates:
    """The states of a process's instances of one month as its roll-up holds them: per instance key its state's
    JSON, parsed when asked for."""

    process: str
    month: str
    path: str
    lines: dict[str, bytes] = field(default_factory=dict)

    def states(self, times: Iterable[datetime]) -> dict[datetime, InstanceState]:
        """The states of those of `times` the roll-up holds: their lines parsed as one JSON array (a call per line
        costs more than the parsing), each line alone when that fails, to name the damaged one."""
        keys = {t: key for t in times if (key := instance_key(t)) in self.lines}
        try:
            documents = json.loads(b"[" + b",".join(self.lines[key] for key in keys.values()) + b"]")
        except (UnicodeDecodeError, json.JSONDecodeError):
            documents = None
        if not isinstance(documents, list) or len(documents) != len(keys):  # a line that is not one value
            documents = [parse_json(self.lines[key], f"{self.path} (the state of instance {key})")
                         for key in keys.values()]
        return {t: InstanceState.from_document(document, self.path, key)
                for (t, key), document in zip(keys.items(), documents, strict=True)}

    def times(self) -> set[datetime]:
        return {t for t in map(parse_instance_key, self.lines) if t is not None}


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def _state_line(key: str, document: Any, path: str) -> str:
    if parse_instance_key(key) is None:
        raise CorruptRecordError(path, f"{key!r} is not an instance key")
    return f"{key} {_json(state_document(_instance_document(document, key, path)))}\n"


def _instance_document(document: Any, key: str, path: str) -> Any:
    if not isinstance(document, dict) or "instance" not in document:
        raise CorruptRecordError(path, f"the instance {key} is not a rolled-up instance")
    return document["instance"]


def compressed(data: bytes) -> bytes:
    """gzip at its fastest level (no name, no time: the same roll-up is the same bytes)."""
    return gzip.compress(data, compresslevel=1, mtime=0)


def month_of(t: datetime) -> str:
    return f"{t.year:04d}{t.month:02d}"  # strftime is slower


def read_rollup(fs: FileSystem, layout: LedgerLayout, process: str, month: str) -> MonthRollup:
    """The month's roll-up of the process (empty when there is none)."""
    path = layout.rollup_record(process, month)
    data = fs.read_if_exists(path)
    if data is None:
        return MonthRollup(process, month, path)
    try:
        text = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as err:
        raise CorruptRecordError(path, f"not a gzip file: {err}") from None
    lines = text.removesuffix(b"\n").split(b"\n")
    head = _head(parse_json(lines[0], path), path, process, month)
    if check_format(head, path, ROLLUP_FORMAT) == 1:  # one line: the head holds the instances
        return MonthRollup(process, month, path, _instances(head, path, process, month))
    last = 1 + _state_count(head, path)
    if len(lines) <= last:
        raise CorruptRecordError(path, f"it ends before its instances' records (line {last + 1})")
    return MonthRollup(process, month, path, _instances(parse_json(lines[last], path), path, process, month))


def read_rollup_states(fs: FileSystem, layout: LedgerLayout, process: str, month: str) -> MonthStates:
    """The states of the month's roll-up of the process (empty when there is none): its head and state lines alone
    are decompressed, and none is parsed before it is asked for."""
    path = layout.rollup_record(process, month)
    data = fs.read_if_exists(path)
    if data is None:
        return MonthStates(process, month, path)
    lines = _inflated_lines(data, path)
    head = _head(parse_json(next(lines, b""), path), path, process, month)
    if check_format(head, path, ROLLUP_FORMAT) == 1:  # its one line holds the records the states come from
        instances = _instances(head, path, process, month)
        return MonthStates(process, month, path, {
            key: _json(state_document(_instance_document(document, key, path))).encode()
            for key, document in instances.items()})
    count = _state_count(head, path)
    block = list(islice(lines, count))
    states = {line[:14].decode("latin-1"): line[15:] for line in block}  # a foreign key is no instance's
    if any(line[14:16] != b" {" for line in block):
        number = next(n for n, line in enumerate(block, start=2) if line[14:16] != b" {")
        raise CorruptRecordError(path, f"line {number} is not an instance key and its state")
    if len(states) != count:
        raise CorruptRecordError(path, f"it holds {len(states)} distinct instance states where its head says {count}")
    return MonthStates(process, month, path, states)


def _head(document: Any, path: str, process: str, month: str) -> dict[str, Any]:
    """A roll-up's first line, once it is known to be that of `process` for `month`."""
    if not isinstance(document, dict):
        raise CorruptRecordError(path, "it is not a JSON object")
    if document.get("process") != process or document.get("month") != month:
        raise CorruptRecordError(path, f"not the roll-up of process '{process}' for {month}")
    return document


def _state_count(head: dict[str, Any], path: str) -> int:
    count = head.get("states")
    if type(count) is not int or count < 0:
        raise CorruptRecordError(path, f"its head's states {count!r} is not a count of state lines")
    return count


def _instances(document: Any, path: str, process: str, month: str) -> dict[str, Any]:
    instances = document.get("instances") if isinstance(document, dict) else None
    if not isinstance(instances, dict):
        raise CorruptRecordError(path, f"not the roll-up of process '{process}' for {month}: it holds no instances")
    return instances


def _inflated_lines(data: bytes, path: str) -> Iterator[bytes]:
    """The gzipped file's lines (without their newline), decompressed as they are taken and no further."""
    inflater = zlib.decompressobj(wbits=31)  # gzip's header and trailer
    pending = b""
    try:
        for at in range(0, len(data), _CHUNK):
            pending += inflater.decompress(data[at:at + _CHUNK])
            *lines, pending = pending.split(b"\n")
            yield from lines
    except zlib.error as err:
        raise CorruptRecordError(path, f"not a gzip file: {err}") from None
    if not inflater.eof:
        raise CorruptRecordError(path, "not a gzip file: it ends before its end (cut short?)")
    if pending:
        yield pending


def rolled_months(fs: FileSystem, layout: LedgerLayout, process: str) -> list[str]:
    """The months (yyyyMM) the process has roll-ups of, oldest first."""
    folder = layout.rollup_folder(process)
    if not fs.exists(folder):
        return []
    names = (status.name for status in fs.list(folder) if not status.is_dir)
    return sorted(name[:6] for name in names if name.endswith(SUFFIX) and name[:6].isdigit() and len(name) == 14)
