"""The ledger's records and their JSON form. Reading one checks its shape: a record that does not parse is
reported with its path and the run refuses to go on (it never guesses what a damaged record meant).

- `AttemptRecord`: one try of a process instance (a first run, a retry, a late rerun), with what it read
  (input instances and their fingerprints), what it published, its counters and its error.
- `InstanceRecord`: the instance's current state, rewritten at each step: what `toolkit status` shows.
- `DatasetEvent`: one publication (or eviction) of a feed instance on a cluster, the trace data-aware consumers
  and lineage read; its `event_id` sorts by publication.
- `LateCheck`: one late-data check of a succeeded instance, so a frequent `--sweep` does only the due work.

A record's `error` is the text of a failure (an exception's message, a workflow's stderr), which can quote a
password a driver or a workflow echoed: it is masked (toolkit/secrets_masking.py) when the record is written and
when it is read, so neither a new record nor one an older toolkit wrote shows it.

Every persisted record (these, the lock leases, the control switches, the run records) carries
`format_version`, so that a ledger outlives the toolkit release that wrote it: a record without one is format 1
(written before versions existed), fields with a default may be missing (a release that adds one still reads
older records), and a record of a newer format is refused rather than misread.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass, replace
from datetime import datetime, timezone
from enum import Enum
from functools import cache
from types import UnionType
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin, get_type_hints

from toolkit.core.el.timestamps import instance_key, parse_instance_key
from toolkit.core.entities.provenance import Provenance
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.quality_results import GateResult
from toolkit.errors import ToolkitError, UsageError
from toolkit.secrets_masking import masked
from toolkit.statuses import Status

# Every status an instance or an attempt can have (docs/ledger.md, `toolkit status`).
STATUSES = (Status.WAITING, Status.RUNNING, Status.SUCCEEDED, Status.FAILED, Status.TIMEDOUT, Status.SKIPPED,
            Status.KILLED)
ATTEMPT_KINDS = ("RUN", "LATE_RERUN")
CHECK_RESULTS = ("UNCHANGED", "CHANGED")
# The format this toolkit writes and the newest it reads. Raise it only for a change an older reader would
# misread (a field renamed or given a new meaning); adding a field with a default is not one.
FORMAT_VERSION = 1
VERSION_FIELD = "format_version"
ERROR_FIELD = "error"  # a failure's text, masked when written and read
# A record class whose format moved on says so in its `FORMAT` (the newest it writes and reads).
EVENT_FORMAT = 2
PUBLISHED, REPLACED, EVICTED = "published", "replaced", "evicted"
EVENT_KINDS = (PUBLISHED, REPLACED, EVICTED)


class CorruptRecordError(ToolkitError):
    """A ledger file that does not parse (exit 1): named with its path; the run refuses rather than guesses."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"The ledger record {path} is damaged ({why}): the run refuses to guess its content; "
                         "check it, then repair or delete that file and call again.")
        self.path, self.why = path, why


class NewerFormatError(UsageError):
    """A record written by a newer toolkit (exit 2): the deployment is misconfigured (an older toolkit on this
    machine than on the one that wrote the ledger), retrying cannot help and nothing was touched; upgrading can."""

    def __init__(self, path: str, version: int, newest: int = FORMAT_VERSION) -> None:
        super().__init__(f"The ledger record {path} was written by a newer toolkit (record format {version}; this "
                         f"toolkit reads formats up to {newest}): upgrade the toolkit on this machine, then "
                         "call again.")
        self.path = path


def check_format(document: Mapping[str, Any], path: str, newest: int = FORMAT_VERSION) -> int:
    """The record's format version (1 when absent); NewerFormatError for one newer than `newest`."""
    version = document.get(VERSION_FIELD, 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CorruptRecordError(path, f"the field '{VERSION_FIELD}' is {version!r}, not a format version (a whole "
                                       "number from 1)")
    if version > newest:
        raise NewerFormatError(path, version, newest)
    return version


def versioned(document: Mapping[str, Any], version: int = FORMAT_VERSION) -> dict[str, Any]:
    """`document` as it is persisted: with the format version this toolkit writes."""
    return {**document, VERSION_FIELD: version}


WALL_CLOCK_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def wall_clock_stamp(seconds: float) -> str:
    """Real instants in records (start, end, lease) to the second: `2026-11-21T10:00:05Z`."""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime(WALL_CLOCK_FORMAT)


def parse_wall_clock_stamp(text: str) -> datetime:
    """The instant a `wall_clock_stamp` names (ValueError for another spelling)."""
    return datetime.strptime(text, WALL_CLOCK_FORMAT).replace(tzinfo=timezone.utc)


# The spelling the toolkit writes, checked without strptime (ten times its speed: a roll-up's month of records
# has thousands of stamps); any other spelling goes to strptime, which decides as it always did.
_CANONICAL = {"%Y-%m-%dT%H:%M:%SZ": re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z"),
              "%Y-%m-%dT%H:%MZ": re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})Z")}


def _parses(value: Any, *patterns: str) -> bool:
    if not isinstance(value, str):
        return False
    for pattern in patterns:
        canonical = _CANONICAL.get(pattern)
        match = canonical.fullmatch(value) if canonical is not None else None
        try:
            if match is not None:
                numbers = [int(group) for group in match.groups()]
                second = numbers[5] if len(numbers) > 5 else 0
                datetime(numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], second)
            else:
                datetime.strptime(value, pattern)
            return True
        except ValueError:
            continue
    return False


# What a text field of a record holds when it is more than any text, said by its annotation and checked when the
# record is read: an instance time (yyyy-MM-ddTHH:mmZ), an instant to the second or the minute, an event id (one,
# or the floor of one: a cursor's position). A field of a few allowed values is `Annotated[str, (values...)]`.
Minute = Annotated[str, "minute"]
Stamp = Annotated[str, "stamp"]
EventId = Annotated[str, "event-id"]
# A time a record keeps as a datetime, spelled in its JSON as an instance key (`20261121T1000Z`, an instance folder's
# name) or as an ISO instant to the millisecond in UTC (`2026-11-21T10:05:00.123Z`, OpenLineage's date-time).
InstanceKeyTime = Annotated[datetime, "instance-key"]
IsoInstant = Annotated[datetime, "iso-instant"]
R = TypeVar("R")


class Written(Generic[R]):
    """Records of `kind` nested in a ledger record (a process attempt's inputs, outputs and quality gates), kept as
    the file holds them, JSON objects, and typed when a reader asks (`typed`).

    Why not typed when the record is read: a window of instance records (`toolkit plan`'s published runs, the
    runner's window, lineage) would build every input instance and fingerprint of each, 2x to 26x the time of the
    read (measured), for readers that mostly never look at them; and an item a first-format toolkit wrote (an output
    with only its name and path) fails only the reader that needs it, not every `toolkit status`. A kind reads and
    writes its own JSON when it says how (`from_json`, `to_json`: a quality gate's result writes figures it derives),
    else through this module's codec, whose checks say what is wrong with an item."""

    __slots__ = ("kind", "_items")

    def __init__(self, kind: type[R], items: Sequence[Mapping[str, Any]] = ()) -> None:
        self.kind = kind
        self._items = tuple(items)  # the caller's list, appended to later, is not this record's

    @classmethod
    def of(cls, kind: type[R], records: Iterable[R]) -> Written[R]:
        """The records as their file will hold them."""
        return cls(kind, [_item_json(record) for record in records])

    def typed(self) -> list[R]:
        """The items as records of the kind, each checked and built once; ItemProblem (a ValueError) naming the
        first that is none (callers that know whose record it is say so: `inputs_read`, `published_outputs`)."""
        read = _item_reader(self.kind)
        typed = []
        for index, item in enumerate(self._items):
            try:
                typed.append(read(item))
            except _NoRecord as none:
                raise ItemProblem(index, str(none)) from None
        return typed

    def written(self, copies: bool = True) -> list[dict[str, Any]]:
        """The items as the file holds them (copies, unless the caller serializes them at once)."""
        if copies:
            return [copy.deepcopy(dict(item)) for item in self._items]
        return [item if isinstance(item, dict) else dict(item) for item in self._items]

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Written) and other.kind is self.kind and other._items == self._items

    __hash__ = None  # type: ignore[assignment]  # its items are JSON objects: as unhashable as a list

    def __repr__(self) -> str:
        return f"Written({self.kind.__name__}, {list(self._items)!r})"


def nothing_written(kind: type[R]) -> Callable[[], Written[R]]:
    """A `Written` field's default: no items (`field(default_factory=nothing_written(ReadInput))`)."""
    return lambda: Written(kind)


class ItemProblem(ValueError):
    """Item `index` of a `Written` is no record of its kind: `problem` says why."""

    def __init__(self, index: int, problem: str) -> None:
        super().__init__(f"item {index}: {problem}")
        self.index, self.problem = index, problem


class _NoRecord(Exception):
    """What an item reader raises for an item that is no record of its kind (the sentence says why)."""


def _item_json(record: Any) -> dict[str, Any]:
    own = getattr(record, "to_json", None)
    return own() if own is not None else _plain(record, nested=True)


def _item_reader(kind: type[R]) -> Callable[[Any], R]:
    """How an item becomes a record of `kind`, or _NoRecord: by the kind's own `from_json`, else checked by the
    codec, then built."""
    own = getattr(kind, "from_json", None)

    def read(item: Any) -> R:
        if not isinstance(item, dict):
            raise _NoRecord("it is not a JSON object")
        if own is not None:
            try:
                return own(item)
            except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as err:  # Overflow: 10**400
                raise _NoRecord(f"it is not a {kind.__name__} ({type(err).__name__}: {err})") from None
        problem = _problem(item, kind)
        if problem is not None:
            raise _NoRecord(problem)
        return _from(kind, item)
    return read


# A field's check: "str", "str?" (or null), "int", "float", "bool", "list", "dict", "dict?", "stamp", "stamp?",
# "minute", "event-id", "event-id?", "instance-key", "iso-instant" (either with "?"), a tuple of allowed values,
# `_Items`: a tuple or frozenset of texts (a JSON list), or `_Nested`: records of a class of their own (a process
# attempt's published outputs), each checked by that class's fields.
_Check = Any
_PLAIN = {str: "str", int: "int", float: "float", bool: "bool", list: "list", dict: "dict"}
LIST, TUPLE, BY_NAME = "list", "tuple", "by-name"


@dataclass(frozen=True)
class _Nested:
    """A field holding records of `cls`: a list of them (`many`: a `list`, a `tuple`, or `by-name`, a dict of them
    by a text key, a JSON object), or (`single`) one, which may be null when `optional`; a class that says
    `UNKNOWN_WHEN_DAMAGED` is read as null when it is damaged, or as the class's empty record where the field takes
    no null (a note about the record, such as the definition it ran or what a lease is for, that must not make the
    record itself unreadable)."""

    cls: type
    single: bool = False
    optional: bool = False
    many: str = LIST

    @property
    def damaged_is_unknown(self) -> bool:
        return bool(getattr(self.cls, "UNKNOWN_WHEN_DAMAGED", False))


@dataclass(frozen=True)
class _Kept:
    """A field holding `Written` records of `kind`: checked as a JSON list when the record is read, its items typed
    when a reader asks."""

    kind: type


@dataclass(frozen=True)
class _Items:
    """A field holding a `tuple` or a `frozenset` of values each checked by `item` (a plain check: "str", "int",
    "event-id"...): a JSON list (a frozenset's written sorted)."""

    kind: type
    item: _Check


@cache
def shape_of(cls: type) -> dict[str, _Check]:
    """Each field's check, derived from the record class's annotations (one declaration of a record: its fields);
    a field of a type no check reads is the toolkit's own mistake (TypeError)."""
    hints = get_type_hints(cls, include_extras=True)
    return {f.name: _check_of(hints[f.name], cls, f.name) for f in fields(cls)}


def _check_of(annotation: Any, cls: type, name: str) -> _Check:
    if get_origin(annotation) is Written:
        return _Kept(get_args(annotation)[0])
    optional = False
    if get_origin(annotation) in (Union, UnionType):
        members = [member for member in get_args(annotation) if member is not type(None)]
        optional = len(members) < len(get_args(annotation))
        annotation = members[0] if len(members) == 1 else annotation
    if get_origin(annotation) is Annotated:
        check = annotation.__metadata__[0]
        if (annotation.__origin__ is datetime) != (isinstance(check, str) and check in _TIME_SPELLINGS):
            check = None  # only a datetime is spelled as a time, and it has to say how
    elif not optional and (many := _many(annotation, cls, name)) is not None:
        return many
    elif isinstance(annotation, type) and is_dataclass(annotation):
        return _Nested(annotation, single=True, optional=optional)
    else:
        check = _PLAIN.get(get_origin(annotation) or annotation)
    if check is None or (optional and not isinstance(check, str)):
        raise _unreadable(annotation, cls, name)
    return f"{check}?" if optional else check


def _unreadable(annotation: Any, cls: type, name: str) -> TypeError:
    return TypeError(f"The field {cls.__name__}.{name} is annotated {annotation!r}, which no record check reads: "
                     "use str, int, float, bool, list, dict (or None with one), Minute, Stamp, EventId, "
                     "InstanceKeyTime, IsoInstant, Annotated[str, (allowed values)], a tuple[..., ...] or "
                     "frozenset of one of those texts or numbers, a record class (or None with one), a list or "
                     "tuple of one, a dict[str, ...] of one, or Written[a record class].")


def _many(annotation: Any, cls: type, name: str) -> _Check | None:
    """The check of a list or tuple of records, a dict of them by name, or a tuple or frozenset of values; None for
    another type (a list of values is a plain "list", as it always was)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is dict:
        if not (len(args) == 2 and isinstance(args[1], type) and is_dataclass(args[1])):
            return None  # an object of values: a plain "dict"
        if args[0] is not str:
            raise _unreadable(annotation, cls, name)  # a JSON object's keys are texts
        return _Nested(args[1], many=BY_NAME)
    if origin not in (list, tuple, frozenset) or not args or (origin is tuple and args[1:] != (Ellipsis,)):
        return None
    item = args[0]
    if isinstance(item, type) and is_dataclass(item):
        return None if origin is frozenset else _Nested(item, many=TUPLE if origin is tuple else LIST)
    if origin is list:
        return None
    check = _check_of(item, cls, name)
    plain = isinstance(check, tuple) or (isinstance(check, str) and check in _HOLDS and check not in _TIME_SPELLINGS)
    return _Items(origin, check) if plain else None


def _check(document: Any, cls: Any, path: str) -> dict[str, Any]:
    """`document` if it is a record of `cls` (the shape of its fields) in a format this toolkit reads; fields
    with a default may be missing. A class's `RECORD_NAME` (`sweep state`) is in the message of a damaged one."""
    if not isinstance(document, dict):
        raise CorruptRecordError(path, _named(cls, "it is not a JSON object"))
    check_format(document, path, _format_of(cls))
    problem = _problem(document, cls)
    if problem is not None:
        raise CorruptRecordError(path, _named(cls, problem))
    return document


def _named(cls: Any, problem: str) -> str:
    name = getattr(cls, "RECORD_NAME", None)
    return problem if name is None else f"not a {name}: {problem}"


def _problem(document: dict[str, Any], cls: Any) -> str | None:
    """What makes `document` no record of `cls`, None when it is one (its nested records checked too)."""
    for name, may_be_missing, problem_of in _field_checks(cls):
        if name not in document:
            if may_be_missing:
                continue
            return f"the field '{name}' is missing"
        problem = problem_of(document[name])
        if problem is not None:
            return problem
    return None


@cache
def _field_checks(cls: type) -> tuple[tuple[str, bool, Callable[[Any], str | None]], ...]:
    """Each field of `cls` with whether it may be missing and what is wrong with a value of it (None: nothing),
    made once per class from its shape (a lineage record checks a thousand nested events)."""
    optional = _optional(cls)
    return tuple((name, name in optional, _problem_of(name, check)) for name, check in shape_of(cls).items())


def _problem_of(name: str, expected: _Check) -> Callable[[Any], str | None]:
    """What is wrong with a value of the field `name` whose check is `expected`, None when nothing is."""
    if isinstance(expected, _Nested):
        return _nested_problem_of(name, expected)
    if isinstance(expected, _Kept):
        return _problem_of(name, "list")
    if isinstance(expected, _Items):
        holds = _HOLDS[expected.item] if isinstance(expected.item, str) else expected.item.__contains__
        wanted = _wanted(expected.item)

        def items_problem(value: Any) -> str | None:
            if not isinstance(value, list):
                return f"the field '{name}' is {value!r}, not a list"
            for index, item in enumerate(value):
                if not holds(item):
                    return f"item {index} of the field '{name}' is {item!r}, not {wanted}"
            return None
        return items_problem
    optional = isinstance(expected, str) and expected.endswith("?")
    kind = expected[:-1] if optional else expected
    holds = _HOLDS[kind] if isinstance(kind, str) else kind.__contains__
    wanted = _wanted(kind)

    def value_problem(value: Any) -> str | None:
        if (optional and value is None) or holds(value):
            return None
        return f"the field '{name}' is {value!r}, not {wanted}"
    return value_problem


def _nested_problem_of(name: str, expected: _Nested) -> Callable[[Any], str | None]:
    cls = expected.cls
    if expected.single:
        def single_problem(value: Any) -> str | None:
            if value is None and expected.optional:
                return None
            inner = _nested_problem(value, cls)
            return None if inner is None or expected.damaged_is_unknown else f"the field '{name}': {inner}"
        return single_problem
    if expected.many == BY_NAME:
        def by_name_problem(value: Any) -> str | None:
            if not isinstance(value, dict):
                return f"the field '{name}' is {value!r}, not an object"
            for key, item in value.items():
                inner = _nested_problem(item, cls)
                if inner is not None:
                    return f"the entry '{key}' of the field '{name}': {inner}"
            return None
        return by_name_problem

    def many_problem(value: Any) -> str | None:
        if not isinstance(value, list):
            return f"the field '{name}' is {value!r}, not a list"
        found = _first_problem(value, cls)
        return None if found is None else f"item {found[0]} of the field '{name}': {found[1]}"
    return many_problem


def _wanted(kind: _Check) -> str:
    return f"one of {', '.join(kind)}" if isinstance(kind, tuple) else _WANTED[kind]


def _nested_problem(value: Any, cls: Any) -> str | None:
    return _problem(value, cls) if isinstance(value, dict) else "it is not a JSON object"


def _first_problem(items: Sequence[Any], cls: Any) -> tuple[int, str] | None:
    """The first item of `items` that is no record of `cls`, with what is wrong with it; None when all are."""
    for index, item in enumerate(items):
        problem = _problem(item, cls) if isinstance(item, dict) else "it is not a JSON object"
        if problem is not None:
            return index, problem
    return None


def _format_of(cls: Any) -> int:
    return int(getattr(cls, "FORMAT", FORMAT_VERSION))


def _optional(cls: Any) -> set[str]:
    return {f.name for f in fields(cls) if f.default is not MISSING or f.default_factory is not MISSING}


def record_time(text: str) -> datetime:
    """The instance time a record names (`time`, always `yyyy-MM-ddTHH:mmZ`)."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc)


_HOLDS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "stamp": lambda v: _parses(v, "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%MZ"),
    "minute": lambda v: _parses(v, "%Y-%m-%dT%H:%MZ"),
    "event-id": lambda v: is_event_id(v),
    "instance-key": lambda v: _key_time(v) is not None,
    "iso-instant": lambda v: parse_iso_instant(v) is not None,
}
_WANTED = {"str": "a text", "int": "an integer", "float": "a number", "bool": "true or false", "list": "a list",
           "dict": "an object",
           "stamp": "a time yyyy-MM-ddTHH:mm:ssZ", "minute": "an instance time yyyy-MM-ddTHH:mmZ",
           "event-id": "an event id yyyyMMddTHHmmssSSSZ...", "instance-key": "an instance key yyyyMMddTHHmmZ",
           "iso-instant": "an instant yyyy-MM-ddTHH:mm:ss.SSSZ"}


def iso_instant(when: datetime) -> str:
    """The OpenLineage spec's date-time: ISO 8601 in UTC, to the millisecond (`2026-11-21T10:05:00.123Z`)."""
    utc = when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso_instant(text: Any) -> datetime | None:
    """The instant an ISO 8601 date-time with its offset (`Z` too) names; None for anything else (a time without an
    offset names no instant)."""
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def _key_time(text: Any) -> datetime | None:
    return parse_instance_key(text) if isinstance(text, str) else None


# How a datetime field is written, and read back (None: not a time of that spelling).
_TIME_SPELLINGS: dict[str, tuple[Callable[[datetime], str], Callable[[Any], datetime | None]]] = {
    "instance-key": (instance_key, _key_time),
    "iso-instant": (iso_instant, parse_iso_instant),
}


def parse_json(data: bytes, path: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as err:  # bad bytes or syntax, a number past int's digits, deep nesting
        raise CorruptRecordError(path, f"not valid JSON: {err}") from None


def to_json(record: Any) -> bytes:
    """A record as its file holds it: indented JSON with sorted keys, or, for a class that says `ONE_LINE` (a large
    record written often: a run's lineage events), one line of compact JSON with the fields in their order."""
    document = versioned(_plain(record, copies=False), _format_of(type(record)))  # written at once: not copied
    if getattr(type(record), "ONE_LINE", False):
        return (json.dumps(document, separators=(",", ":"), default=str) + "\n").encode()
    return (json.dumps(document, indent=2, sort_keys=True, default=str) + "\n").encode()


def record_document(record: Any) -> dict[str, Any]:
    """A record as the JSON object it is persisted as (with its format version)."""
    return versioned(_plain(record), _format_of(type(record)))


def _plain(record: Any, nested: bool = False, copies: bool = True) -> dict[str, Any]:
    """A record's fields as JSON values; a nested record leaves out its optional fields that are None (a file
    output has no `table`), so that its JSON is what the toolkit always wrote. Its lists and objects are copies
    unless `copies` is false (a document serialized at once); a dict of records is written by sorted key, a
    frozenset sorted, a datetime field in its spelling."""
    plain = {}
    kind: type = type(record)
    for name, none_by_default, spelled in _names(kind):
        value = getattr(record, name)
        if value is None:
            if nested and none_by_default:
                continue
        elif type(value) in _SCALARS and name != ERROR_FIELD:
            pass  # the most common, written as it is
        elif spelled is not None:
            value = spelled(value)
        elif isinstance(value, Written):
            value = value.written(copies)
        elif isinstance(value, dict):
            if value and is_dataclass(next(iter(value.values()))):
                value = {key: _plain(value[key], True, copies) for key in sorted(value)}
            elif copies:
                value = copy.deepcopy(value)
        elif isinstance(value, (list, tuple)):
            if value and is_dataclass(value[0]):
                value = [_plain(each, True, copies) for each in value]
            elif isinstance(value, tuple):
                value = list(value)
            elif copies:
                value = copy.deepcopy(value)
        elif isinstance(value, frozenset):
            value = sorted(value)
        elif is_dataclass(value) and not isinstance(value, type):
            value = _plain(value, True, copies)
        elif name == ERROR_FIELD and isinstance(value, str):
            value = masked(value)
        plain[name] = value
    return plain


_SCALARS = frozenset({str, int, float, bool})


@cache
def _names(cls: type) -> tuple[tuple[str, bool, Callable[[datetime], str] | None], ...]:
    """A record class's fields, each with whether it is left out of a nested record when None (its default is None,
    unless the class `KEEPS_NULLS`: a format that always wrote them) and how it is spelled when it is a time: read
    once per class (a retention run's record holds tens of thousands of nested records)."""
    keeps = bool(getattr(cls, "KEEPS_NULLS", False))
    times = _time_fields(cls)
    return tuple((item.name, item.default is None and not keeps,
                  times[item.name][0] if item.name in times else None) for item in fields(cls))


@cache
def _time_fields(cls: type) -> dict[str, tuple[Callable[[datetime], str], Callable[[Any], datetime | None]]]:
    """The datetime fields (InstanceKeyTime, IsoInstant, or None with one), each with how it is written and read."""
    try:
        hints = get_type_hints(cls, include_extras=True)
    except (NameError, TypeError):  # annotations that do not resolve: no time spelled (shape_of says why)
        return {}
    found = {}
    for name, annotation in hints.items():
        members = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
        for member in members:
            spelling = member.__metadata__[0] if get_origin(member) is Annotated else None
            if isinstance(spelling, str) and spelling in _TIME_SPELLINGS:
                found[name] = _TIME_SPELLINGS[spelling]
    return found


def event_json(event: DatasetEvent) -> bytes:
    """A dataset event as one line of JSON: events are the ledger's most numerous records (a retention run
    can write tens of thousands), and `to_json`'s indented form costs five times as much to encode."""
    document = versioned({f.name: getattr(event, f.name) for f in fields(event)
                          if f.name not in ("definition", "fingerprint")}, _format_of(DatasetEvent))
    document["fingerprint"] = event.fingerprint.to_json() if event.fingerprint is not None else None
    if event.definition is not None:
        document["definition"] = event.definition.to_json()
    return (json.dumps(document, sort_keys=True) + "\n").encode()


def _from(cls: Any, document: Mapping[str, Any]) -> Any:
    readers, values = _readers(cls), {}
    for name, value in document.items():
        if name in readers:  # a field this release does not know is left out
            read = readers[name]
            values[name] = value if read is None else read(value)
    return cls(**values)


@cache
def _readers(cls: type) -> dict[str, Callable[[Any], Any] | None]:
    """How each field of `cls` is read from its checked JSON value (None: as it is), made once per class."""
    enums, times = _enum_fields(cls), _time_fields(cls)
    return {name: _reader(name, check, enums.get(name), times.get(name, (None, None))[1])
            for name, check in shape_of(cls).items()}


def _reader(name: str, check: _Check, enum: type[Enum] | None,
            time: Callable[[Any], datetime | None] | None) -> Callable[[Any], Any] | None:
    if isinstance(check, _Kept):
        kind = check.kind
        return lambda v: Written(kind, v)
    if isinstance(check, _Nested):
        cls = check.cls
        if check.single:
            if not check.damaged_is_unknown:
                return lambda v: None if v is None else _from(cls, v)
            empty = None if check.optional else cls  # what a damaged note reads as: none, or an empty one

            def note(v: Any) -> Any:
                if v is None or _nested_problem(v, cls) is not None:
                    return empty() if empty is not None else None
                return _from(cls, v)
            return note
        if check.many == BY_NAME:
            return lambda v: {key: _from(cls, item) for key, item in v.items()}
        if check.many == TUPLE:
            return lambda v: tuple([_from(cls, item) for item in v])
        return lambda v: [_from(cls, item) for item in v]
    if isinstance(check, _Items):
        return check.kind
    converter = time or enum
    if converter is not None:
        return lambda v: None if v is None else converter(v)
    if name == ERROR_FIELD:
        return lambda v: masked(v) if isinstance(v, str) else v
    return None


@cache
def _enum_fields(cls: type) -> dict[str, type[Enum]]:
    """The fields typed as an enum (a status): read back as its member, not as the text JSON holds."""
    hints = get_type_hints(cls, include_extras=True)
    found = {}
    for name, annotation in hints.items():
        base = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
        if isinstance(base, type) and issubclass(base, Enum):
            found[name] = base
    return found


def parse_record(cls: Any, data: bytes, path: str) -> Any:
    """A record of `cls` (a frozen dataclass of typed fields) from its JSON, checked: for the records of other
    modules."""
    return record_from(cls, parse_json(data, path), path)


def record_from(cls: Any, document: Any, path: str) -> Any:
    """A record of `cls` from a JSON object already parsed (one of many in a file: a roll-up), checked."""
    return _from(cls, _check(document, cls, path))


@dataclass(frozen=True)
class PublishedOutput:
    """One output an attempt published (or a batch): the feed instance, where it is now (a table's partition
    folder), how many data files and bytes it holds, and whether it replaced an earlier version. A table output
    names its table (`database.table`) and partition values too."""

    name: str
    feed: str
    time: Minute
    path: str
    files: int
    bytes: int
    replaced: bool | None = None
    table: str | None = None
    partition: dict[str, str] | None = None

    @property
    def instance(self) -> datetime:
        return record_time(self.time)

    def to_json(self) -> dict[str, Any]:
        """The output as a record holds it (the optional fields only where they are set)."""
        return _plain(self, nested=True)


@dataclass(frozen=True)
class ReadInstance:
    """One instance of an input as a run read it: a process attempt's, where it was, whether it was available
    then and its fingerprint; a batch's, the event it consumed."""

    time: Minute
    location: str | None = None
    available: bool = True
    fingerprint: Fingerprint | None = None
    event_id: str | None = None

    @property
    def instance(self) -> datetime:
        return record_time(self.time)

    @property
    def digest(self) -> str | None:
        """The fingerprint's digest (what late data is measured by), None when it had none."""
        return self.fingerprint.digest if self.fingerprint is not None else None


@dataclass(frozen=True)
class ReadInput:
    """An input a run read: its name in the process, its feed (the first records of format 1 name none: nothing
    that needs it can use them), whether it was optional, its instances, and why its window had none."""

    name: str
    feed: str | None = None
    optional: bool | None = None
    instances: list[ReadInstance] = field(default_factory=list)
    unresolved: str | None = None


def inputs_read(inputs: Written[ReadInput], whose: str) -> list[ReadInput]:
    """The inputs a record lists (`whose`: the process and instance or batch it is of), typed; records keep them
    as written. UsageError (exit 2) for one no toolkit wrote, naming the record."""
    try:
        return inputs.typed()
    except ItemProblem as found:
        raise UsageError(f"The ledger's record of {whose} lists an input this toolkit cannot read (input "
                         f"{found.index}: {found.problem}): check the record, then repair it or run the instance "
                         "again with --force.") from None


def published_outputs(outputs: Written[PublishedOutput], whose: str) -> list[PublishedOutput]:
    """The outputs a record lists (`whose`: the process and instance or batch it is of), typed: records keep
    them as written, and the first records of format 1 may name only an output and its path, which nothing that
    needs its feed can use (a UsageError saying so, exit 2)."""
    try:
        return outputs.typed()
    except ItemProblem as found:
        raise UsageError(f"The ledger's record of {whose} lists a published output this toolkit cannot use (output "
                         f"{found.index}: {found.problem}); it was written by an older toolkit: run the instance "
                         "again with --force to record it anew.") from None


def gate_results(quality: Written[GateResult], whose: str) -> list[GateResult]:
    """The quality gates' results a record lists (`whose`: the run it is of), typed. UsageError (exit 2) for one no
    toolkit wrote, naming the record."""
    try:
        return quality.typed()
    except ItemProblem as found:
        raise UsageError(f"The ledger's record of {whose} lists a quality gate's result this toolkit cannot read "
                         f"(result {found.index}: {found.problem}): check the record, then repair or delete it.") \
            from None


@dataclass(frozen=True)
class AttemptJob:
    """The job of another server an attempt's workflow runs as (an Oozie workflow job of the `oozie` and `pig`
    engines), recorded before it is followed: its `id`, the `run_id` and `attempt` whose staging it writes (a killed
    run's, when followed), and `status`, the server's end status once the attempt saw it (left out before). A damaged
    one reads as none, as before it was typed: nothing follows it, and the record it is in stays readable."""

    UNKNOWN_WHEN_DAMAGED = True

    id: str
    run_id: str
    attempt: int
    status: str | None = None


# What an attempt's workflow counted (`workflow_seconds`; records of format 1 hold others, such as `rows`).
Counters = dict[str, int | float]


@dataclass(frozen=True)
class AttemptRecord:
    process: str
    cluster: str
    time: Minute
    attempt: int
    run_id: str
    kind: Annotated[str, ATTEMPT_KINDS]
    status: Annotated[Status, STATUSES]
    started: Stamp
    ended: Stamp | None = None
    error: str | None = None
    inputs: Written[ReadInput] = field(default_factory=nothing_written(ReadInput))  # typed by inputs_read()
    outputs: Written[PublishedOutput] = field(default_factory=nothing_written(PublishedOutput))  # typed by published()
    counters: Counters = field(default_factory=dict)
    # The data-quality gates the attempt's outputs were checked against (quality_results.py).
    quality: Written[GateResult] = field(default_factory=nothing_written(GateResult))
    job: AttemptJob | None = None  # the job of another server the attempt's workflow runs as (engines oozie, pig)
    # The definition it ran (core/entities/provenance.py, Provenance.to_json); absent from records of older toolkits.
    definition: Provenance | None = None

    @classmethod
    def parse(cls, data: bytes, path: str) -> AttemptRecord:
        return _from(cls, _check(parse_json(data, path), cls, path))

    def published(self) -> list[PublishedOutput]:
        return published_outputs(self.outputs, f"process '{self.process}' at {self.time} (attempt {self.attempt})")

    def inputs_read(self) -> list[ReadInput]:
        return inputs_read(self.inputs, f"process '{self.process}' at {self.time} (attempt {self.attempt})")

    def gates(self) -> list[GateResult]:
        return gate_results(self.quality, f"process '{self.process}' at {self.time} (attempt {self.attempt})")


@dataclass(frozen=True)
class InstanceRecord:
    """`inputs` holds what the last successful attempt read (with fingerprints): what late data is measured
    against. `missing` lists the input instances a WAITING instance waits for."""

    process: str
    cluster: str
    time: Minute
    status: Annotated[Status, STATUSES]
    attempts: int
    run_id: str | None
    updated: Stamp
    started: Stamp | None = None
    ended: Stamp | None = None
    error: str | None = None
    missing: list[str] = field(default_factory=list)
    inputs: Written[ReadInput] = field(default_factory=nothing_written(ReadInput))  # typed by inputs_read()
    outputs: Written[PublishedOutput] = field(default_factory=nothing_written(PublishedOutput))  # typed by published()
    succeeded: Stamp | None = None
    # The definition of the attempt that last succeeded (core/entities/provenance.py); older records have none.
    definition: Provenance | None = None

    @classmethod
    def parse(cls, data: bytes, path: str) -> InstanceRecord:
        return _from(cls, _check(parse_json(data, path), cls, path))

    def published(self) -> list[PublishedOutput]:
        return published_outputs(self.outputs, f"process '{self.process}' at {self.time}")

    def inputs_read(self) -> list[ReadInput]:
        return inputs_read(self.inputs, f"process '{self.process}' at {self.time}")

    @property
    def nominal(self) -> datetime:
        return record_time(self.time)


def event_id(published_ms: int, run_id: str, feed: str, time: str, kind: str) -> str:
    """`20261121T100700123Z-<run id>-<8 hex>`: sorts by publication (to the millisecond, then the run), unique on a
    cluster because one run records one event per feed instance and kind (the hex is of those three)."""
    return f"{event_id_head(published_ms, run_id)}{event_discriminator(feed, time, kind)}"


def event_id_head(published_ms: int, run_id: str) -> str:
    """What the ids of one run's events at one instant share: `20261121T100700123Z-<run id>-`."""
    return f"{event_id_floor(published_ms)}-{run_id}-"


def event_discriminator(feed: str, time: str, kind: str) -> str:
    """The 8 hex digits that end an event id: what tells apart the events one run records at one instant."""
    return hashlib.sha256(f"{feed}\n{time}\n{kind}".encode()).hexdigest()[:8]


def event_id_floor(published_ms: int) -> str:
    """`20261121T100700123Z`: sorts before every event id published at that millisecond or later, after every
    earlier one (a reader's "now", which no position may pass: an id from a clock that runs fast)."""
    stamp = datetime.fromtimestamp(published_ms // 1000, timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}{published_ms % 1000:03d}Z"


def event_id_ms(identifier: str) -> int:
    """The publication instant (milliseconds since the epoch) an event id starts with (a sweep reads one per
    process: the canonical digits are read without strptime, anything else goes to strptime as it always did)."""
    head = identifier[:15]
    if _ID_STAMP.fullmatch(head):
        stamp = datetime(int(head[:4]), int(head[4:6]), int(head[6:8]), int(head[9:11]), int(head[11:13]),
                         int(head[13:15]), tzinfo=timezone.utc)
    else:
        stamp = datetime.strptime(head, "%Y%m%dT%H%M%S").replace(tzinfo=timezone.utc)
    return int(stamp.timestamp()) * 1000 + int(identifier[15:18])


_ID_STAMP = re.compile(r"[0-9]{8}T[0-9]{6}")
_ID_FLOOR = re.compile(r"[0-9]{8}T[0-9]{9}Z")


def is_event_id(value: Any) -> bool:
    """An event id or its floor: the instant it starts with is a real one (`event_id_ms` reads it)."""
    if not isinstance(value, str) or not _ID_FLOOR.match(value):
        return False
    try:
        event_id_ms(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class PublicationFacts:
    """What a producer tells the ledger when the instance `time` of `feed` became visible on `cluster`
    (`Ledger.record_publication`): the ledger adds the kind, the instant and the id of its `DatasetEvent`.
    `definition`: the producer's (core/entities/provenance.py)."""

    feed: str
    cluster: str
    time: datetime
    producer: str
    run_id: str
    location: str
    fingerprint: Fingerprint | None
    definition: Provenance | None = None


@dataclass(frozen=True)
class DatasetEvent:
    """A feed instance made visible (`published`, or `replaced` when it was visible already) or evicted, on one
    cluster. `fingerprint` is the instance's (core/instances/fingerprints.py) as published, null for `evicted`.
    Format 1 (process outputs only) had no kind, fingerprint nor id: read as `published`, with an id made
    from its published stamp and run."""

    feed: str
    cluster: str
    time: Minute
    run_id: str
    producer: str
    location: str
    published: Stamp
    kind: Annotated[str, EVENT_KINDS] = PUBLISHED
    fingerprint: Fingerprint | None = None
    event_id: str = ""
    definition: Provenance | None = None  # the producer's definition (core/entities/provenance.py); older: none

    FORMAT = EVENT_FORMAT

    @classmethod
    def parse(cls, data: bytes, path: str) -> DatasetEvent:
        event: DatasetEvent = _from(cls, _check(parse_json(data, path), cls, path))
        if event.event_id:
            if not _EVENT_ID.match(event.event_id):
                raise CorruptRecordError(path, f"the field 'event_id' is {event.event_id!r}, not an event id")
            return event
        published = record_stamp(event.published)
        return replace(event, event_id=event_id(int(published.timestamp()) * 1000, event.run_id, event.feed,
                                                event.time, event.kind))

    @property
    def nominal(self) -> datetime:
        return record_time(self.time)


_EVENT_ID = re.compile(r"^\d{8}T\d{9}Z-[A-Za-z0-9_.-]*-[0-9a-f]{8}$")


_PADDED_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?Z\Z")


def record_stamp(text: str) -> datetime:
    """A stamp of a record (to the second, or to the minute) as a UTC instant. The padded form every writer uses is
    read without strptime (a year of a process's rows has 17,000 stamps, and strptime took most of their time)."""
    if _PADDED_STAMP.match(text) is not None:
        try:
            return datetime.fromisoformat(text[:-1] + "+00:00")  # the ISO form (3.10 reads no Z); UTC itself
        except ValueError:
            pass  # out of range: strptime says the same
    for pattern in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%MZ"):
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValueError(f"{text!r} is not a stamp")


@dataclass(frozen=True)
class LateCheck:
    """`at` is the check's own nominal time (`late_check.py --time`); `changed` names the late inputs."""

    at: Stamp
    result: Annotated[str, CHECK_RESULTS]
    changed: list[str] = field(default_factory=list)
    run_id: str | None = None



def parse_late_checks(data: bytes, path: str) -> list[LateCheck]:
    document = parse_json(data, path)
    if not isinstance(document, list):
        raise CorruptRecordError(path, "it is not a JSON list of checks")
    return [_from(LateCheck, _check(item, LateCheck, path)) for item in document]


def late_checks_json(checks: list[LateCheck]) -> bytes:
    return (json.dumps([versioned(asdict(check)) for check in checks], indent=2, sort_keys=True) + "\n").encode()


def stamp_seconds(stamp: str | None) -> float | None:
    """A record's instant (`2026-11-21T10:00:05Z`, or to the minute) in seconds since the epoch (None: none, or not a
    stamp)."""
    if stamp is None:
        return None
    try:
        return record_stamp(stamp).timestamp()
    except ValueError:
        return None
