"""A ledger record is declared once, by its fields: the check its JSON gets when read is derived from their
annotations (Minute, Stamp, EventId, a tuple of allowed values), so a field added to a record is checked too."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest

from toolkit.core.entities.provenance import Provenance
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.consumption import Cursor
from toolkit.core.ledger.ingest_book import IngestBatch
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import (
    STATUSES,
    AttemptJob,
    AttemptRecord,
    CorruptRecordError,
    DatasetEvent,
    Minute,
    PublishedOutput,
    ReadInput,
    Stamp,
    _Kept,
    _Nested,
    parse_record,
    shape_of,
    to_json,
)


def test_the_checks_of_a_record_are_read_from_its_annotations() -> None:
    assert shape_of(AttemptRecord) == {
        "process": "str", "cluster": "str", "time": "minute", "attempt": "int", "run_id": "str",
        "kind": ("RUN", "LATE_RERUN"), "status": STATUSES, "started": "stamp", "ended": "stamp?", "error": "str?",
        "inputs": _Kept(ReadInput), "outputs": _Kept(PublishedOutput), "counters": "dict", "quality": _Kept(GateResult),
        "job": _Nested(AttemptJob, single=True, optional=True),
        "definition": _Nested(Provenance, single=True, optional=True)}
    assert shape_of(DatasetEvent)["fingerprint"] == _Nested(Fingerprint, single=True, optional=True)
    assert shape_of(Cursor)["position"] == "event-id?"
    assert shape_of(IngestBatch)["state"] == ("planned", "committed")


@dataclass(frozen=True)
class _Mark:
    feed: str
    time: Minute
    written: Stamp
    state: Annotated[str, ("open", "shut")]
    note: str | None = None
    files: list[str] = field(default_factory=list)


def _document(**changes: Any) -> bytes:
    document = {"feed": "clicks", "time": "2026-11-21T10:00Z", "written": "2026-11-21T10:05:00Z", "state": "open",
                "note": None, "files": [], **changes}
    return json.dumps(document).encode()


def test_a_new_record_class_is_read_checked_and_written_back_with_no_shape_of_its_own() -> None:
    mark = parse_record(_Mark, _document(), "marks/a.json")
    assert mark == _Mark("clicks", "2026-11-21T10:00Z", "2026-11-21T10:05:00Z", "open")
    assert parse_record(_Mark, to_json(mark), "marks/a.json") == mark


@pytest.mark.parametrize(("changes", "why"), [
    ({"time": "2026-11-21T10:00:00Z"}, "the field 'time' is '2026-11-21T10:00:00Z', not an instance time"),
    ({"written": "yesterday"}, "the field 'written' is 'yesterday', not a time yyyy-MM-ddTHH:mm:ssZ"),
    ({"state": "ajar"}, "the field 'state' is 'ajar', not one of open, shut"),
    ({"note": 3}, "the field 'note' is 3, not a text"),
    ({"files": "a"}, "the field 'files' is 'a', not a list"),
])
def test_a_field_that_breaks_its_annotation_is_a_damaged_record(changes: dict[str, Any], why: str) -> None:
    with pytest.raises(CorruptRecordError, match=why):
        parse_record(_Mark, _document(**changes), "marks/a.json")


def test_a_missing_field_without_a_default_is_a_damaged_record() -> None:
    data = json.loads(_document())
    del data["written"]
    with pytest.raises(CorruptRecordError, match="the field 'written' is missing"):
        parse_record(_Mark, json.dumps(data).encode(), "marks/a.json")


def test_a_field_of_a_type_no_check_reads_is_the_toolkits_own_mistake() -> None:
    odd = dataclasses.make_dataclass("Odd", [("when", "set[str]")], frozen=True)
    with pytest.raises(TypeError, match=r"Odd\.when is annotated .* which no record check reads"):
        shape_of(odd)


@dataclass(frozen=True)
class _Part:
    name: str
    size: int
    kept: bool | None = None


@dataclass(frozen=True)
class _Parcel:
    label: str
    parts: list[_Part] = field(default_factory=list)


def test_a_list_of_records_is_read_checked_and_built_item_by_item() -> None:
    data = json.dumps({"label": "a", "parts": [{"name": "x", "size": 1}, {"name": "y", "size": 2, "kept": True,
                                                                          "later": "field"}]}).encode()
    parcel = parse_record(_Parcel, data, "parcels/a.json")
    assert parcel == _Parcel("a", [_Part("x", 1), _Part("y", 2, True)])
    # written back as it came (an optional field that is None is left out of a nested record), the format added
    assert json.loads(to_json(parcel)) == {"format_version": 1, "label": "a",
                                           "parts": [{"name": "x", "size": 1}, {"name": "y", "size": 2, "kept": True}]}


@pytest.mark.parametrize(("parts", "why"), [
    ("x", "the field 'parts' is 'x', not a list"),
    (["x"], "item 0 of the field 'parts': it is not a JSON object"),
    ([{"name": "x", "size": 1}, {"name": "y"}], "item 1 of the field 'parts': the field 'size' is missing"),
    ([{"name": "x", "size": 1, "kept": "yes"}], "item 0 of the field 'parts': the field 'kept' is 'yes', not true or "
                                                "false"),
])
def test_a_damaged_item_of_a_list_of_records_is_named(parts: Any, why: str) -> None:
    with pytest.raises(CorruptRecordError, match=why):
        parse_record(_Parcel, json.dumps({"label": "a", "parts": parts}).encode(), "parcels/a.json")


@dataclass(frozen=True)
class _Run:
    run_id: str
    definition: Provenance | None = None


def test_an_optional_nested_record_is_written_as_an_object_read_back_typed_and_null_stays_null() -> None:
    ran = _Run("r1", Provenance("v1:" + "a" * 64, None))
    written = to_json(ran)
    assert json.loads(written)["definition"] == {"commit": None, "definition": "v1:" + "a" * 64, "dirty": False}
    assert parse_record(_Run, written, "run.json") == ran
    assert parse_record(_Run, to_json(_Run("r2")), "run.json") == _Run("r2")


@dataclass(frozen=True)
class _Place:
    path: str
    files: int = 0


@dataclass(frozen=True)
class _Copy:
    run_id: str
    place: _Place | None = None


@pytest.mark.parametrize(("place", "problem"), [
    ("/data", "the field 'place': it is not a JSON object"),
    ({"files": 1}, "the field 'place': the field 'path' is missing"),
    ({"path": "/data", "files": "two"}, "the field 'place': the field 'files' is 'two', not an integer"),
])
def test_a_nested_record_that_is_not_one_names_the_field_and_what_is_wrong(place: object, problem: str) -> None:
    """(A nested record whose class says UNKNOWN_WHEN_DAMAGED, the definition a record ran, reads as None instead:
    test_definition_records.py.)"""
    data = json.dumps({"format_version": 1, "run_id": "r1", "place": place}).encode()
    with pytest.raises(CorruptRecordError, match=problem):
        parse_record(_Copy, data, "copy.json")
    assert parse_record(_Copy, to_json(_Copy("r2", _Place("/data", 2))), "copy.json") == _Copy("r2", _Place("/data", 2))
