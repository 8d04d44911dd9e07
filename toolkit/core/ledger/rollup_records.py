"""Monthly roll-ups: the closed instances of a process in one month, in one file.

    <ledger>/processes/<process>/rollups/<yyyyMM>.json.gz

A year of hourly instances is 8,760 instance folders per process, each with its instance record and an attempt
record: a listing of the process grows with its whole history, and a ledger of 1,000 such processes needs some
26 million files (an HDFS namenode keeps every one in its heap). `toolkit ledger-rollup` (rollups.py) moves the
closed instances (a terminal status, no run holding them) of months gone by into one file per month, and then
deletes their folders. The file is gzipped (records repeat their field names: a month of hourly records shrinks
about tenfold) and holds lines (format 3):

    {"digest":{...},"format_version":3,"month":"202512","process":"hourly","states":744}    the head
    20251201T0000Z {"attempts":1,"ended":...,"status":"SUCCEEDED",...}      per instance, sorted: its key, its state
    ...
    {"instances":{"20251201T0000Z":{"attempts":[...],"instance":{...},"late_checks":[...]},...}}

An instance's state (instance_states.py) is its instance record without what it read and wrote, a small part of
it, and all that `toolkit status`, `summary`, `report` and `metrics` read of a window: they decompress the head and
the state lines alone and parse the lines of the instances they ask for (a week of a month's instances is a week's
parsing). The last line holds each instance's records. The head says how many state lines follow, and holds the
month's digest (format 3): per instance, in the state lines' order, its minute in the month, its status (a letter),
its attempts, when it ended and how long it ran, as five columns (instance_states.InstanceOutline). Whoever needs no
more of a month than that (the status page's older plain successes: a year of a hundred processes is 876,000 of
them; the metrics of a window) reads the head alone and parses no state line. The state lines and the digest are
derived from the last line when the file is written, in one file replaced atomically, so the three never
disagree. A format 2 file (no digest) and a format 1 file (one line: the last line's
content beside the version, the process and the month) are still read; what they lack is derived when asked for.

Readers see one ledger: an instance folder wins over the roll-up for what it holds (a rerun of a rolled-up
instance writes a folder again, so its new state is what every reader sees), attempts are the union of both by
number (the folder's win), late checks are the folder's when it has them. Readers look at the folder first and at
the roll-up after, and the roll-up is written before the folders are deleted, so a reader racing a roll-up finds
every instance in one place or the other.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from itertools import pairwise
from operator import add
from typing import Any

from toolkit.core.el.timestamps import instance_key, parse_instance_key
from toolkit.core.ledger.instance_states import InstanceOutline, InstanceState, Outlines, state_document
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import (
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
from toolkit.core.storage.filesystem import FileSystem

ROLLUP_FORMAT = 3
SUFFIX = ".json.gz"
_CHUNK = 16384  # bytes read, and inflated, at a time while reading a roll-up's first lines
MONTH_MINUTES = 31 * 24 * 60  # the most instances a month can have: one a minute
MINUTE = timedelta(minutes=1)
# A status's letter in a digest's `status` column (persisted: a letter keeps its meaning in every format 3 file).
STATUS_LETTERS = {"WAITING": "W", "RUNNING": "R", "SUCCEEDED": "S", "FAILED": "F", "TIMEDOUT": "T", "SKIPPED": "K",
                  "KILLED": "X"}
# The digest's columns, one entry per state line each (`rollup_head`).
DIGEST_COLUMNS = ("minutes", "status", "attempts", "ended", "duration")
_LETTER_STATUS = {letter: status for status, letter in STATUS_LETTERS.items()}
_DIGEST_STATUS = re.compile("[" + "".join(STATUS_LETTERS.values()) + "]*")


def _entries_of(entry: str) -> re.Pattern[str]:
    return re.compile(f"(?:{entry})(?: (?:{entry}))*")


# What the entries of a digest's number columns may be: whole numbers of at most 12 ASCII digits (an entry of
# 5,000 digits is refused, not passed to `int`), signed where a clock may have been behind, `-` where none is known.
_COUNTS = _entries_of("[0-9]{1,12}")
_COUNTS_OR_NONE = _entries_of("[0-9]{1,12}|-")
_SECONDS_OR_NONE = _entries_of("-?[0-9]{1,12}|-")


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
        lines = {key: _json(_state_of(key, document, self.path)) for key, document in instances.items()}
        states = "".join(f"{key} {line}\n" for key, line in lines.items())
        # the digest of the state lines as a reader parses them (a record's status is a Status, a line's a text)
        head = rollup_head(self.process, self.month, {key: json.loads(line) for key, line in lines.items()}, self.path)
        return compressed(f"{head}\n{states}{_json({'instances': instances})}\n".encode())


def rollup_head(process: str, month: str, states: dict[str, dict[str, Any]], path: str = "") -> str:
    """The first line of a roll-up of `process` for `month` (at `path`) whose state lines hold `states` (by key,
    sorted): the count of state lines and the month's digest, each instance's outline as five columns."""
    start = _month_start(month)
    minutes = [(parse_instance_key(key) - start) // MINUTE for key in states]  # type: ignore[operator]
    outlines = [InstanceOutline.of(InstanceState.from_document(document, path, key))
                for key, document in states.items()]
    digest = {"minutes": _runs(minutes), **_digest_columns(start, minutes, outlines)}
    return _json(versioned({"process": process, "month": month, "states": len(states), "digest": digest},
                           ROLLUP_FORMAT))


def _digest_columns(start: datetime, minutes: list[int], outlines: list[InstanceOutline]) -> dict[str, str]:
    """The digest's columns but its minutes, each a text: statuses a letter each; attempts, ends (in seconds after the
    instance's time) and durations as whole numbers separated by spaces, `-` for none. Texts, not JSON lists: a
    reader splits them in C and converts only the entries it asks for (three JSON lists of a month's hourly
    instances took 250 µs to parse, about as long as a week's metrics of the process take in all)."""
    base = start.timestamp()
    return {"status": "".join(STATUS_LETTERS[outline.status] for outline in outlines),
            "attempts": " ".join(str(outline.attempts) for outline in outlines),
            "ended": " ".join("-" if outline.ended is None else str(round(outline.ended - base - minute * 60))
                              for outline, minute in zip(outlines, minutes, strict=True)),
            "duration": " ".join("-" if outline.duration is None else str(outline.duration) for outline in outlines)}


@dataclass(frozen=True)
class MonthDigest:
    """The digest of a process's roll-up of one month (at `path`): per instance it holds, in time order, what
    `InstanceOutline` says of it, as columns. An entry is converted, and checked, only for an instance asked for
    (a week's metrics ask for a quarter of a month); the columns' shapes are checked where the digest is built
    (`read_rollup_digest`)."""

    path: str
    start: datetime  # the month's
    minutes: tuple[int, ...]  # each instance's minute in the month, increasing
    statuses: str  # a letter each (STATUS_LETTERS)
    attempts: str  # whole numbers, an entry an instance, separated by single spaces
    ended: str  # seconds after the instance's time (a whole number, negative when its clock was behind), or -
    durations: str  # seconds, a whole number, or -

    def outlines(self, wanted: Iterable[datetime]) -> Outlines:
        """The outlines of those of `wanted` the roll-up holds, in time order."""
        indexes, times, seconds = _located(self.start, self.minutes, tuple(wanted))
        statuses = tuple(map(_LETTER_STATUS.__getitem__, map(self.statuses.__getitem__, indexes)))
        attempts = self._numbers(self.attempts, indexes, times, "attempts", "a count", _COUNTS)
        after = self._numbers(self.ended, indexes, times, "ended", "a number of seconds or -", _SECONDS_OR_NONE)
        ended = tuple(map(add, seconds, after)) if None not in after else \
            tuple(None if late is None else at + late for at, late in zip(seconds, after, strict=True))
        durations = self._numbers(self.durations, indexes, times, "duration", "a count of seconds or -",
                                  _COUNTS_OR_NONE)
        return Outlines(times, statuses, attempts, ended, durations)  # type: ignore[arg-type]  # attempts: no `-`

    def _numbers(self, column: str, indexes: tuple[int, ...], times: tuple[datetime, ...], name: str, what: str,
                 entries: re.Pattern[str]) -> tuple[int | None, ...]:
        """The entries of a text column at `indexes` as whole numbers (`-`: None), checked against `entries` in one
        match; a bad entry is named with its instance."""
        texts = _taken(column, len(self.minutes), indexes)
        if texts and entries.fullmatch(" ".join(texts)) is None:
            n = next(n for n, text in enumerate(texts) if entries.fullmatch(text) is None)
            raise CorruptRecordError(self.path, f"its head's digest: the {name} of instance {instance_key(times[n])} "
                                                f"is {texts[n][:20]!r}, not {what}")
        if "-" not in texts:
            return tuple(map(int, texts))
        return tuple(None if text == "-" else int(text) for text in texts)

    @property
    def times(self) -> tuple[datetime, ...]:
        return tuple(self.start + minute * MINUTE for minute in self.minutes)

    @classmethod
    def of(cls, path: str, start: datetime, states: dict[datetime, InstanceState]) -> MonthDigest:
        """The digest of a roll-up that has none (format 1 or 2), from its states."""
        times = sorted(states)
        minutes = [(t - start) // MINUTE for t in times]
        columns = _digest_columns(start, minutes, [InstanceOutline.of(states[t]) for t in times])
        return cls(path, start, tuple(minutes), columns["status"], columns["attempts"], columns["ended"],
                   columns["duration"])


def _taken(column: str, count: int, indexes: tuple[int, ...]) -> list[str]:
    """The entries at `indexes` (increasing) of a text of `count` entries separated by single spaces. A window's
    instances are a run of consecutive entries: the text is split from its nearer end as far as the run, not
    whole (a week's metrics of an hourly process take the last 168 of a month's 744)."""
    if not indexes:
        return []
    first, last = indexes[0], indexes[-1]
    if last - first + 1 != len(indexes):  # not consecutive: picked from all
        return list(map(column.split(" ").__getitem__, indexes))
    if count - first <= last + 1:
        return column.rsplit(" ", count - first)[-(count - first):][:last - first + 1]
    return column.split(" ", last + 1)[first:last + 1]


@lru_cache(maxsize=64)
def _located(start: datetime, minutes: tuple[int, ...], wanted: tuple[datetime, ...]) \
        -> tuple[tuple[int, ...], tuple[datetime, ...], tuple[float, ...]]:
    """The indexes in a digest of the month from `start` whose instances are at `minutes` of those of `wanted` it
    holds, increasing, their times and their times in seconds since the epoch: computed once for the processes of
    a window that have the same minutes (most: a month of hourly instances)."""
    found: dict[int, datetime] = {}
    for t in wanted:
        since = t - start
        if since.seconds % 60 or since.microseconds:
            continue  # no instance of a month is between its minutes
        minute = since.days * 1440 + since.seconds // 60
        n = bisect_left(minutes, minute)
        if n < len(minutes) and minutes[n] == minute:
            found[n] = t
    indexes = tuple(sorted(found))
    base = start.timestamp()
    return indexes, tuple(map(found.__getitem__, indexes)), tuple(base + minutes[n] * 60 for n in indexes)


def _month_start(month: str) -> datetime:
    return datetime(int(month[:4]), int(month[4:]), 1, tzinfo=timezone.utc)


def _runs(minutes: list[int]) -> list[int]:
    """Increasing minutes as the first one and runs of equal steps, `[first, step, count, step, count, ...]`: a
    month of hourly instances is `[0, 60, 743]`."""
    runs = minutes[:1]
    for previous, current in pairwise(minutes):
        step = current - previous
        if len(runs) > 1 and runs[-2] == step:
            runs[-1] += 1
        else:
            runs += [step, 1]
    return runs


@dataclass
class MonthStates:
    """The states of a process's instances of one month as its roll-up holds them: per instance key its state line's
    JSON (format 2), or its rolled-up records (format 1), each parsed or derived when asked for."""

    process: str
    month: str
    path: str
    lines: dict[str, bytes] = field(default_factory=dict)
    records: dict[str, Any] = field(default_factory=dict)  # format 1: per key, the instance's records

    def states(self, times: Iterable[datetime]) -> dict[datetime, InstanceState]:
        """The states of those of `times` the roll-up holds."""
        found = {}
        for t in times:
            key = instance_key(t)
            line = self.lines.get(key)
            if line is not None:
                document = _state_document(line, key, self.path)
            elif key in self.records:
                document = state_document(_instance_document(self.records[key], key, self.path))
            else:
                continue
            found[t] = InstanceState.from_document(document, self.path, key)
        return found

    def times(self) -> set[datetime]:
        return {t for t in map(parse_instance_key, self.lines or self.records) if t is not None}


_DECODER = json.JSONDecoder()


def _state_document(line: bytes, key: str, path: str) -> Any:
    """A state line's JSON (after its key), which must be one value that ends the line."""
    try:
        text = line.decode("utf-8")
        document, end = _DECODER.raw_decode(text)  # no per-call overhead of json.loads: a window reads thousands
    except (ValueError, RecursionError) as err:
        raise CorruptRecordError(path, f"the state of instance {key} is not valid JSON: {err}") from None
    if text[end:].strip():
        raise CorruptRecordError(path, f"the state of instance {key} is not one JSON value: {text[end:][:40]!r} "
                                       "follows it")
    return document


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def _state_of(key: str, document: Any, path: str) -> dict[str, Any]:
    if parse_instance_key(key) is None:
        raise CorruptRecordError(path, f"{key!r} is not an instance key")
    return state_document(_instance_document(document, key, path))


def _instance_document(document: Any, key: str, path: str) -> dict[str, Any]:
    instance = document.get("instance") if isinstance(document, dict) else None
    if not isinstance(instance, dict):
        raise CorruptRecordError(path, f"the instance {key} is not a rolled-up instance")
    return instance


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
    opened = _open(fs, layout, process, month)
    if opened is None:
        return MonthStates(process, month, layout.rollup_record(process, month))
    return _states(opened, process, month)


def _states(opened: _Opened, process: str, month: str) -> MonthStates:
    path, inflated, head, version = opened
    if version == 1:  # its one line holds the records the states come from
        return MonthStates(process, month, path, records=_instances(head, path, process, month))
    count = _state_count(head, path)
    block = inflated.lines(count)
    if len(block) < count:
        raise CorruptRecordError(path, f"it ends after {len(block)} of the {count} state lines its head says")
    keys = b"".join(line[:15] for line in block)
    if _state_keys(month.encode()).fullmatch(keys) is None:
        raise CorruptRecordError(path, f"line {_first_bad(block, month) + 2} is not the key of an instance of "
                                       f"{month} and its state")
    states = {line[:14].decode("ascii"): line[15:] for line in block}
    if len(states) != count:
        raise CorruptRecordError(path, f"it holds {len(states)} distinct instance states where its head says {count}")
    if not inflated.starts(b'{"instances":'):
        raise CorruptRecordError(path, f"line {count + 2} is not its instances' records (cut short?)")
    return MonthStates(process, month, path, states)


def read_rollup_digest(fs: FileSystem, layout: LedgerLayout, process: str, month: str) -> MonthDigest:
    """The digest of the month's roll-up of the process (empty when there is none): its head alone is read from the
    file (its first `_CHUNK` bytes, where an hourly process's head is some 1 KB of the 70 KB a month's roll-up
    takes), decompressed and parsed. A longer head, or a roll-up written before digests were (format 1 or 2, whose
    states are read instead), has the whole file read."""
    path = layout.rollup_record(process, month)
    start = fs.read_start(path, _CHUNK)
    first = _Inflated(start, path) if start is not None else None
    if first is not None and first.holds_a_line():
        head, version = _checked_head(first, path, process, month)
        if version >= 3:
            return _digest(head, path, month, _state_count(head, path))
    # read whole, again: never a start of one file and the rest of another
    opened = _open(fs, layout, process, month) if first is not None else None
    if opened is None:
        return MonthDigest(path, _month_start(month), (), "", "", "", "")
    path, _, head, version = opened
    if version < 3:
        states = _states(opened, process, month)
        return MonthDigest.of(path, _month_start(month), states.states(states.times()))
    return _digest(head, path, month, _state_count(head, path))


_Opened = tuple[str, "_Inflated", dict[str, Any], int]  # a roll-up's path, its lines as read, its head, its format


def _open(fs: FileSystem, layout: LedgerLayout, process: str, month: str) -> _Opened | None:
    """The month's roll-up of the process with its head read and checked (None: there is none)."""
    path = layout.rollup_record(process, month)
    data = fs.read_if_exists(path)
    if data is None:
        return None
    inflated = _Inflated(data, path)
    return (path, inflated, *_checked_head(inflated, path, process, month))


def _checked_head(inflated: _Inflated, path: str, process: str, month: str) -> tuple[dict[str, Any], int]:
    """The roll-up's first line taken and checked as its head, and its format."""
    head = _head(parse_json(b"".join(inflated.lines(1)), path), path, process, month)
    return head, check_format(head, path, ROLLUP_FORMAT)


def _digest(head: dict[str, Any], path: str, month: str, count: int) -> MonthDigest:
    """The digest a format 3 head holds, checked: a column of each for the `count` state lines, minutes of the
    month in increasing order, letters of statuses, and texts of as many entries for the other three."""
    digest = head.get("digest")
    columns: list[Any] = [digest.get(name) if isinstance(digest, dict) else None for name in DIGEST_COLUMNS]
    runs, letters, *texts = columns
    minutes = _expanded(runs)
    start = _month_start(month)
    last = ((start + timedelta(days=32)).replace(day=1) - start) // MINUTE
    attempts, ended, durations = (_entries(text, count) for text in texts)
    if minutes is None or len(minutes) != count or (minutes and not 0 <= minutes[0] <= minutes[-1] < last):
        problem = f"its minutes {_short(runs)} are not {count} minutes of {month} in increasing order"
    elif type(letters) is not str or len(letters) != count or _DIGEST_STATUS.fullmatch(letters) is None:
        problem = f"its status {_short(letters)} is not {count} letters of statuses ({''.join(_LETTER_STATUS)})"
    elif attempts is None:
        problem = f"its attempts {_short(texts[0])} are not {count} counts of attempts"
    elif ended is None:
        problem = f"its ended {_short(texts[1])} are not {count} numbers of seconds or -"
    elif durations is None:
        problem = f"its duration {_short(texts[2])} are not {count} counts of seconds or -"
    else:
        return MonthDigest(path, start, minutes, letters, attempts, ended, durations)
    raise CorruptRecordError(path, f"its head's digest: {problem}")


def _entries(values: Any, count: int) -> str | None:
    """`values` when it is a text of `count` entries separated by single spaces (none: empty), else None; each
    entry is checked when it is taken (`MonthDigest.outlines`)."""
    if type(values) is not str:
        return None
    if count == 0:
        return values if values == "" else None
    if not values or values.count(" ") != count - 1 or "  " in values or values[0] == " " or values[-1] == " ":
        return None
    return values


def _short(value: Any) -> str:
    """A damaged column as a message shows it: its start."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _expanded(runs: Any) -> tuple[int, ...] | None:
    """The minutes of `_runs`, when `runs` is such a list with steps of at least a minute (None: it is not)."""
    if type(runs) is not list or not all(type(item) is int for item in runs) or len(runs) % 2 != 1:
        return () if runs == [] else None
    return _expanded_runs(tuple(runs))


@lru_cache(maxsize=64)
def _expanded_runs(runs: tuple[int, ...]) -> tuple[int, ...] | None:
    """Expanded once for the roll-ups that share their minutes (a thousand hourly processes' Decembers do)."""
    minutes = [runs[0]]
    for step, repeated in zip(runs[1::2], runs[2::2], strict=True):
        if step < 1 or repeated < 1 or len(minutes) + repeated > MONTH_MINUTES:
            return None
        minutes += range(minutes[-1] + step, minutes[-1] + step * repeated + 1, step)
    return tuple(minutes)


# A roll-up's state keys, each with the space after it: the month's days, hours and minutes.
_STATE_KEY = rb"(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3])[0-5]\dZ "


@lru_cache(maxsize=64)
def _state_keys(month: bytes) -> re.Pattern[bytes]:
    """The keys of a state block of `month` (each 15 bytes: `yyyyMMddTHHmmZ `), matched in one call."""
    return re.compile(b"(?:" + re.escape(month) + _STATE_KEY + b")*")


def _first_bad(block: list[bytes], month: str) -> int:
    return next(n for n, line in enumerate(block) if _state_keys(month.encode()).fullmatch(line[:15]) is None)


def _head(document: Any, path: str, process: str, month: str) -> dict[str, Any]:
    """A roll-up's first line, once it is known to be that of `process` for `month`."""
    if not isinstance(document, dict):
        raise CorruptRecordError(path, "it is not a JSON object")
    if document.get("process") != process or document.get("month") != month:
        raise CorruptRecordError(path, f"not the roll-up of process '{process}' for {month}")
    return document


def _state_count(head: dict[str, Any], path: str) -> int:
    count = head.get("states")
    if type(count) is not int or not 0 <= count <= MONTH_MINUTES:
        raise CorruptRecordError(path, f"its head's states {count!r} is not a count of state lines (0 to "
                                       f"{MONTH_MINUTES}, a month's minutes)")
    return count


def _instances(document: Any, path: str, process: str, month: str) -> dict[str, Any]:
    instances = document.get("instances") if isinstance(document, dict) else None
    if not isinstance(instances, dict):
        raise CorruptRecordError(path, f"not the roll-up of process '{process}' for {month}: it holds no instances")
    return instances


class _Inflated:
    """A gzipped file's lines, decompressed as far as they are taken and no further, a piece at a time (kept as a
    list until lines are taken: a month of minutely instances is 6 MB of state lines, 400 pieces)."""

    def __init__(self, data: bytes, path: str) -> None:
        self._data, self._path, self._at = data, path, 0
        self._inflater = zlib.decompressobj(wbits=31)  # gzip's header and trailer
        self._pending: list[bytes] = []  # inflated and not taken yet, in order
        self._newlines = 0  # in _pending

    def lines(self, count: int) -> list[bytes]:
        """The next `count` lines without their newlines (fewer when the file ends first; its last line without a
        newline counts)."""
        while self._newlines < count and self._more():
            pass
        parts = b"".join(self._pending).split(b"\n", count)
        if len(parts) > count:
            rest = parts.pop()
            self._pending, self._newlines = [rest], rest.count(b"\n")
        else:
            self._pending, self._newlines = [], 0
            if parts[-1] == b"":
                parts.pop()
        return parts

    def holds_a_line(self) -> bool:
        """Whether the bytes given hold the whole first line (or the whole stream), inflated as far as needed: a
        reader given the start of a file learns whether that start is enough, without taking the line."""
        while self._newlines < 1 and not self._inflater.eof:
            if not self._inflater.unconsumed_tail and self._at >= len(self._data):
                return False
            self._more()
        return True

    def starts(self, prefix: bytes) -> bool:
        """Whether what follows the lines taken starts with `prefix`."""
        while sum(map(len, self._pending)) < len(prefix) and self._more():
            pass
        return b"".join(self._pending).startswith(prefix)

    def _more(self) -> bool:
        """Inflate some more: at most `_CHUNK` bytes of text at a time, for a reader of the head alone needs its
        first few kilobytes of a file that inflates to a megabyte."""
        if self._inflater.eof:
            return False
        chunk = self._inflater.unconsumed_tail
        if not chunk and self._at < len(self._data):
            chunk = self._data[self._at:self._at + _CHUNK]
            self._at += _CHUNK
        try:
            inflated = self._inflater.decompress(chunk, _CHUNK)
        except zlib.error as err:
            raise CorruptRecordError(self._path, f"not a gzip file: {err}") from None
        if not chunk and not inflated:  # every byte read, and the stream not at its end
            raise CorruptRecordError(self._path, "not a gzip file: it ends before its end (cut short?)")
        self._pending.append(inflated)
        self._newlines += inflated.count(b"\n")
        return True


def rolled_months(fs: FileSystem, layout: LedgerLayout, process: str) -> list[str]:
    """The months (yyyyMM) the process has roll-ups of, oldest first."""
    folder = layout.rollup_folder(process)
    if not fs.exists(folder):
        return []
    names = (status.name for status in fs.list(folder) if not status.is_dir)
    return sorted(name[:6] for name in names if name.endswith(SUFFIX) and name[:6].isdigit() and len(name) == 14)
