"""The ledger's records: their JSON form round-trips, and a damaged record is refused naming its path and field."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import (
    STATUSES,
    AttemptRecord,
    CorruptRecordError,
    DatasetEvent,
    InstanceRecord,
    LateCheck,
    PublishedOutput,
    ReadInput,
    Written,
    late_checks_json,
    parse_late_checks,
    to_json,
    wall_clock_stamp,
)

PATH = "file:///cluster/working/ledger/processes/p/20261121T1000Z/instance.json"

ATTEMPT = AttemptRecord(
    process="hourly-clicks-summary", cluster="primary", time="2026-11-21T10:00Z", attempt=2, run_id="0123456789ab",
    kind="RUN", status="FAILED", started="2026-11-21T10:05:00Z", ended="2026-11-21T10:06:30Z",
    error="Statement 1 of the workflow w.sql failed: boom",
    inputs=Written(ReadInput, [{"name": "clicks", "instances": [{"time": "2026-11-21T10:00Z", "available": True,
                                                                 "fingerprint": {"digest": "ab", "files": 1,
                                                                                 "bytes": 10}}]}]),
    outputs=Written(PublishedOutput, [{"name": "summary", "path": "file:///x/data/2026/11/21/10"}]),
    counters={"rows": 12, "bytes": 3.5},
)

INSTANCE = InstanceRecord(
    process="hourly-clicks-summary", cluster="primary", time="2026-11-21T10:00Z", status="WAITING", attempts=0,
    run_id=None, updated="2026-11-21T10:01:02Z", missing=["clicks 2026-11-21T10:00Z (file:///x/data/clicks)"],
)

EVENT = DatasetEvent(feed="clicks-hourly-summary", cluster="primary", time="2026-11-21T10:00Z",
                     run_id="0123456789ab", producer="hourly-clicks-summary",
                     location="file:///x/data/clicks-hourly-summary/2026/11/21/10", published="2026-11-21T10:07:00Z",
                     kind="replaced", fingerprint=Fingerprint("ab", 1, 10),
                     event_id="20261121T100700123Z-0123456789ab-0a1b2c3d")


def document(record: Any) -> dict[str, Any]:
    return json.loads(to_json(record))


def encoded(document: Any) -> bytes:
    return json.dumps(document).encode()


@pytest.mark.parametrize("record", [ATTEMPT, INSTANCE, EVENT], ids=["attempt", "instance", "event"])
def test_records_round_trip_through_json(record: Any) -> None:
    data = to_json(record)
    assert data.endswith(b"\n")
    assert type(record).parse(data, PATH) == record


def test_the_json_of_a_record_holds_every_field() -> None:
    assert document(INSTANCE) == {
        "process": "hourly-clicks-summary", "cluster": "primary", "time": "2026-11-21T10:00Z", "status": "WAITING",
        "attempts": 0, "run_id": None, "updated": "2026-11-21T10:01:02Z", "started": None, "ended": None,
        "error": None, "missing": ["clicks 2026-11-21T10:00Z (file:///x/data/clicks)"], "inputs": [], "outputs": [],
        "succeeded": None, "definition": None, "format_version": 1,
    }
    assert INSTANCE.nominal == datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
    assert set(document(ATTEMPT)) == {"process", "cluster", "time", "attempt", "run_id", "kind", "status",
                                      "started", "ended", "error", "inputs", "outputs", "counters", "quality", "job",
                                      "definition", "format_version"}


def test_unknown_fields_are_ignored_on_reading() -> None:
    written = {**document(EVENT), "added_by_a_newer_version": 1}
    assert DatasetEvent.parse(encoded(written), PATH) == EVENT


def test_wall_clock_stamp_is_utc_to_the_second() -> None:
    assert wall_clock_stamp(datetime(2026, 11, 21, 10, 0, 5, tzinfo=timezone.utc).timestamp()) == "2026-11-21T10:00:05Z"


@pytest.mark.parametrize(("data", "why"), [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe", "not valid JSON"),
    (b"[1, 2]", "it is not a JSON object"),
    (b'"text"', "it is not a JSON object"),
    (b'{"attempts": ' + b"9" * 5000 + b"}", "not valid JSON: Exceeds the limit"),  # int's digits, a ValueError
    (b'{"inputs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "not valid JSON: maximum recursion depth"),
])
def test_a_record_that_is_not_a_json_object_is_refused(data: bytes, why: str) -> None:
    with pytest.raises(CorruptRecordError) as raised:
        InstanceRecord.parse(data, PATH)
    assert raised.value.path == PATH
    assert str(raised.value).startswith(f"The ledger record {PATH} is damaged ({why}")
    assert raised.value.exit_code == 1


@pytest.mark.parametrize("name", ["process", "time", "status", "run_id", "attempts", "updated"])
def test_a_missing_required_field_is_named(name: str) -> None:
    written = document(INSTANCE)
    del written[name]
    with pytest.raises(CorruptRecordError) as raised:
        InstanceRecord.parse(encoded(written), PATH)
    assert f"the field '{name}' is missing" in str(raised.value)
    assert PATH in str(raised.value)


@pytest.mark.parametrize(("cls", "base", "name", "value", "wanted"), [
    (AttemptRecord, ATTEMPT, "attempt", "2", "an integer"),
    (AttemptRecord, ATTEMPT, "attempt", True, "an integer"),
    (AttemptRecord, ATTEMPT, "inputs", {}, "a list"),
    (AttemptRecord, ATTEMPT, "counters", [], "an object"),
    (AttemptRecord, ATTEMPT, "quality", {}, "a list"),
    (AttemptRecord, ATTEMPT, "ended", 5, "a time yyyy-MM-ddTHH:mm:ssZ"),
    (AttemptRecord, ATTEMPT, "started", None, "a time yyyy-MM-ddTHH:mm:ssZ"),
    (AttemptRecord, ATTEMPT, "time", "21.11.2026 10:00", "an instance time yyyy-MM-ddTHH:mmZ"),
    (AttemptRecord, ATTEMPT, "kind", "RERUN", "one of RUN, LATE_RERUN"),
    (InstanceRecord, INSTANCE, "run_id", 12, "a text"),
    (InstanceRecord, INSTANCE, "process", None, "a text"),
    (DatasetEvent, EVENT, "published", "yesterday", "a time yyyy-MM-ddTHH:mm:ssZ"),
    (DatasetEvent, EVENT, "kind", "created", "one of published, replaced, evicted"),
])
def test_a_field_of_the_wrong_type_is_named(cls: Any, base: Any, name: str, value: Any, wanted: str) -> None:
    written = {**document(base), name: value}
    with pytest.raises(CorruptRecordError) as raised:
        cls.parse(encoded(written), PATH)
    assert f"the field '{name}' is {value!r}, not {wanted}" in str(raised.value)
    assert raised.value.path == PATH


@pytest.mark.parametrize(("value", "problem"), [
    ("ab", "the field 'fingerprint': it is not a JSON object"),
    ({"files": 1, "bytes": 10}, "the field 'fingerprint': the field 'digest' is missing"),
    ({"digest": "ab", "files": "1", "bytes": 10}, "the field 'fingerprint': the field 'files' is '1', not an integer"),
])
def test_an_events_fingerprint_is_checked_as_the_record_it_is(value: Any, problem: str) -> None:
    with pytest.raises(CorruptRecordError) as raised:
        DatasetEvent.parse(encoded({**document(EVENT), "fingerprint": value}), PATH)
    assert problem in str(raised.value) and raised.value.path == PATH
    event = DatasetEvent.parse(encoded({**document(EVENT), "fingerprint": {"digest": "ab", "files": 1, "bytes": 10}}),
                               PATH)
    assert event.fingerprint == Fingerprint("ab", 1, 10)


@pytest.mark.parametrize("cls,base", [(AttemptRecord, ATTEMPT), (InstanceRecord, INSTANCE)])
def test_a_status_outside_the_statuses_is_refused(cls: Any, base: Any) -> None:
    written = {**document(base), "status": "DONE"}
    with pytest.raises(CorruptRecordError) as raised:
        cls.parse(encoded(written), PATH)
    assert f"the field 'status' is 'DONE', not one of {', '.join(STATUSES)}" in str(raised.value)
    assert PATH in str(raised.value)


@pytest.mark.parametrize("status", STATUSES)
def test_every_status_is_accepted(status: str) -> None:
    written = {**document(INSTANCE), "status": status}
    assert InstanceRecord.parse(encoded(written), PATH).status == status


def test_a_record_time_with_seconds_is_refused_or_readable() -> None:
    written = {**document(INSTANCE), "time": "2026-11-21T10:00:00Z"}
    try:
        record = InstanceRecord.parse(encoded(written), PATH)
    except CorruptRecordError as err:
        assert "the field 'time'" in str(err)
        return
    assert record.nominal == datetime(2026, 11, 21, 10, tzinfo=timezone.utc)


def test_late_checks_round_trip() -> None:
    checks = [LateCheck("2026-11-21T11:00Z", "UNCHANGED"),
              LateCheck("2026-11-21T12:00Z", "CHANGED", ["clicks"], "0123456789ab")]
    data = late_checks_json(checks)
    assert json.loads(data)[1] == {"at": "2026-11-21T12:00Z", "result": "CHANGED", "changed": ["clicks"],
                                   "run_id": "0123456789ab", "format_version": 1}
    assert parse_late_checks(data, PATH) == checks


@pytest.mark.parametrize("data", [b'{"at": "2026-11-21T11:00Z"}', b'"checks"', b"null"])
def test_late_checks_that_are_not_a_list_are_refused(data: bytes) -> None:
    with pytest.raises(CorruptRecordError) as raised:
        parse_late_checks(data, PATH)
    assert "it is not a JSON list of checks" in str(raised.value)
    assert raised.value.path == PATH


def test_a_damaged_late_check_names_its_field() -> None:
    data = b'[{"at": "2026-11-21T11:00Z", "result": "MAYBE", "changed": [], "run_id": null}]'
    with pytest.raises(CorruptRecordError) as raised:
        parse_late_checks(data, PATH)
    assert "the field 'result' is 'MAYBE', not one of UNCHANGED, CHANGED" in str(raised.value)


def test_an_event_is_written_in_format_2_with_its_kind_fingerprint_and_id() -> None:
    written = document(EVENT)
    assert written["format_version"] == 2
    assert (written["kind"], written["fingerprint"], written["event_id"]) == (
        "replaced", {"digest": "ab", "files": 1, "bytes": 10}, "20261121T100700123Z-0123456789ab-0a1b2c3d")


def test_an_event_id_that_is_no_event_id_is_damage() -> None:
    with pytest.raises(CorruptRecordError, match="the field 'event_id' is 'x', not an event id"):
        DatasetEvent.parse(encoded({**document(EVENT), "event_id": "x"}), PATH)


def test_event_ids_sort_by_publication_and_differ_by_instance() -> None:
    from toolkit.core.ledger.records import event_id, event_id_ms

    first = event_id(1_795_000_000_123, "run-b", "clicks", "20261121T1000Z", "published")
    later = event_id(1_795_000_000_124, "run-a", "clicks", "20261121T1000Z", "replaced")
    assert first.startswith("20261118T110640123Z-run-b-") and first < later
    assert event_id_ms(first) == 1_795_000_000_123
    assert first != event_id(1_795_000_000_123, "run-b", "clicks", "20261121T1100Z", "published")
