"""The record codec's containers and spelled times (toolkit/core/ledger/records.py): records by name
(`dict[str, Record]`), a tuple of records, a tuple or frozenset of texts, a datetime kept as an instance key or an
ISO instant, and a class written as one compact line; each checked when read, a damaged one refused naming the path
and what is wrong, never a traceback."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any

import pytest

from toolkit.core.ledger.records import (
    BY_NAME,
    TUPLE,
    CorruptRecordError,
    EventId,
    InstanceKeyTime,
    IsoInstant,
    _Items,
    _Nested,
    parse_record,
    record_document,
    shape_of,
    to_json,
)

TEN = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Slot:
    time: InstanceKeyTime
    count: int
    note: str | None = None


@dataclass(frozen=True)
class Shelf:
    """A record of each new shape."""

    RECORD_NAME = "shelf"

    opened: IsoInstant
    slots: tuple[Slot, ...] = ()
    by_name: dict[str, Slot] = field(default_factory=dict)
    tags: frozenset[str] = frozenset()
    ids: tuple[EventId, ...] = ()
    moods: tuple[Annotated[str, ("calm", "busy")], ...] = ()
    closed: IsoInstant | None = None


@dataclass(frozen=True)
class Line:
    ONE_LINE = True

    name: str
    payload: dict[str, Any]
    slots: tuple[Slot, ...] = ()


SHELF = Shelf(TEN + timedelta(seconds=5, microseconds=123000),
              (Slot(TEN, 1), Slot(TEN + timedelta(hours=1), 2, "late")), {"b": Slot(TEN, 3), "a": Slot(TEN, 4)},
              frozenset({"z", "y"}), ("20261121T100700123Z-run-0a1b2c3d",), ("busy",))


def test_the_shapes_are_read_from_the_annotations() -> None:
    assert shape_of(Shelf) == {"opened": "iso-instant", "slots": _Nested(Slot, many=TUPLE),
                               "by_name": _Nested(Slot, many=BY_NAME), "tags": _Items(frozenset, "str"),
                               "ids": _Items(tuple, "event-id"), "moods": _Items(tuple, ("calm", "busy")),
                               "closed": "iso-instant?"}
    assert shape_of(Slot)["time"] == "instance-key"


def test_a_record_of_each_shape_is_written_as_json_and_read_back_the_same() -> None:
    document = json.loads(to_json(SHELF))
    assert document == {
        "format_version": 1, "opened": "2026-11-21T10:00:05.123Z", "closed": None,
        "slots": [{"time": "20261121T1000Z", "count": 1}, {"time": "20261121T1100Z", "count": 2, "note": "late"}],
        "by_name": {"a": {"time": "20261121T1000Z", "count": 4}, "b": {"time": "20261121T1000Z", "count": 3}},
        "tags": ["y", "z"], "ids": ["20261121T100700123Z-run-0a1b2c3d"], "moods": ["busy"]}
    assert list(document["by_name"]) == ["a", "b"]  # by sorted name
    again = parse_record(Shelf, to_json(SHELF), "shelf.json")
    assert again == SHELF
    assert isinstance(again.slots, tuple) and isinstance(again.tags, frozenset) and isinstance(again.ids, tuple)
    assert parse_record(Shelf, b'{"opened": "2026-11-21T10:00:05.123+01:00"}', "shelf.json").opened == \
        TEN + timedelta(seconds=5, microseconds=123000) - timedelta(hours=1)


def test_a_record_document_is_a_copy_and_to_json_copies_nothing_it_writes() -> None:
    line = Line("run", {"nested": {"list": [1]}})
    document = record_document(line)
    document["payload"]["nested"]["list"].append(2)
    assert line.payload == {"nested": {"list": [1]}}


def test_a_one_line_class_is_written_compact_in_its_fields_order() -> None:
    line = Line("run", {"b": 1, "a": [True, None]}, (Slot(TEN, 1),))
    assert to_json(line) == (b'{"name":"run","payload":{"b":1,"a":[true,null]},'
                             b'"slots":[{"time":"20261121T1000Z","count":1}],"format_version":1}\n')
    assert parse_record(Line, to_json(line), "line.json") == line


@pytest.mark.parametrize(("change", "reason"), [
    ({"opened": "2026-11-21T10:00:05Z-"}, "the field 'opened' is '2026-11-21T10:00:05Z-', not an instant"),
    ({"opened": "2026-11-21T10:00:05.123"}, "the field 'opened' is '2026-11-21T10:00:05.123', not an instant"),
    ({"opened": 1795255205}, "the field 'opened' is 1795255205, not an instant"),
    ({"closed": "yesterday"}, "the field 'closed' is 'yesterday', not an instant"),
    ({"slots": {"time": "20261121T1000Z", "count": 1}}, "the field 'slots' is {"),
    ({"slots": [{"time": "20261121T1000Z", "count": 1}, 7]}, "item 1 of the field 'slots': it is not a JSON object"),
    ({"slots": [{"time": "2026-11-21T10:00Z", "count": 1}]},
     "item 0 of the field 'slots': the field 'time' is '2026-11-21T10:00Z', not an instance key yyyyMMddTHHmmZ"),
    ({"slots": [{"time": "20261321T1000Z", "count": 1}]}, "the field 'time' is '20261321T1000Z', not an instance key"),
    ({"slots": [{"time": "20261121T1000Z", "count": float("inf")}]}, "the field 'count' is inf, not an integer"),
    ({"slots": [{"time": "20261121T1000Z"}]}, "item 0 of the field 'slots': the field 'count' is missing"),
    ({"by_name": [{"time": "20261121T1000Z", "count": 1}]}, "the field 'by_name' is [{"),
    ({"by_name": {"a": {"time": "20261121T1000Z", "count": "1"}}},
     "the entry 'a' of the field 'by_name': the field 'count' is '1', not an integer"),
    ({"by_name": {"a": None}}, "the entry 'a' of the field 'by_name': it is not a JSON object"),
    ({"tags": "a"}, "the field 'tags' is 'a', not a list"),
    ({"tags": ["a", 1]}, "item 1 of the field 'tags' is 1, not a text"),
    ({"ids": ["garbage"]}, "item 0 of the field 'ids' is 'garbage', not an event id"),
    ({"moods": ["sad"]}, "item 0 of the field 'moods' is 'sad', not one of calm, busy"),
    ({"format_version": "1"}, "not a format version"),
])
def test_a_damaged_record_is_refused_naming_its_path_and_what_is_wrong(change: dict[str, Any], reason: str) -> None:
    document = {**json.loads(to_json(SHELF)), **change}
    with pytest.raises(CorruptRecordError) as raised:
        parse_record(Shelf, json.dumps(document).encode(), "ledger/shelves/a.json")
    assert "ledger/shelves/a.json" in str(raised.value) and reason in str(raised.value)
    if "format_version" not in change:
        assert "(not a shelf: " in str(raised.value)  # the class's RECORD_NAME


def test_a_field_with_a_default_may_be_missing() -> None:
    assert parse_record(Shelf, b'{"opened": "2026-11-21T10:00:05.000Z"}', "a.json") == Shelf(TEN + timedelta(seconds=5))


@dataclass(frozen=True)
class _Inner:
    a: int


@dataclass(frozen=True)
class _RecordsInASet:
    items: frozenset[_Inner]


@dataclass(frozen=True)
class _KeySpelledText:
    time: Annotated[str, "instance-key"]


@dataclass(frozen=True)
class _TimeWithoutSpelling:
    time: Annotated[datetime, "minute"]


@dataclass(frozen=True)
class _MixedTuple:
    pair: tuple[int, str]


@dataclass(frozen=True)
class _TupleOfOptional:
    items: tuple[str | None, ...]


@dataclass(frozen=True)
class _RecordsByNumber:
    items: dict[int, _Inner]


@pytest.mark.parametrize("cls", [_RecordsInASet, _KeySpelledText, _TimeWithoutSpelling, _MixedTuple, _TupleOfOptional,
                                 _RecordsByNumber])
def test_a_field_no_check_reads_is_the_toolkits_own_mistake(cls: type) -> None:
    with pytest.raises(TypeError, match="which no record check reads"):
        shape_of(cls)
