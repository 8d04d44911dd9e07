"""Records nested in a ledger record (a process attempt's inputs, outputs and quality gates) are kept as the file holds
them and typed when a reader asks (`Written` in toolkit/core/ledger/records.py): a record reads without building
them, writes them back as they were, and an item no toolkit wrote fails only the reader that types it, with a
sentence naming the record."""

from __future__ import annotations

import json

import pytest

from toolkit.core.entities.model import OnFailure
from toolkit.core.ledger.quality_results import ExpectationOutcome, GateResult
from toolkit.core.ledger.records import (
    AttemptRecord,
    InstanceRecord,
    PublishedOutput,
    ReadInput,
    ReadInstance,
    Written,
    to_json,
)
from toolkit.errors import UsageError

STAMP = "2026-11-21T10:06:30Z"
OUTPUT = {"name": "summary", "feed": "clicks-summary", "time": "2026-11-21T10:00Z",
          "path": "file:///data/summary/2026/11/21/10", "files": 2, "bytes": 11, "replaced": False}
INPUT = {"name": "clicks", "feed": "clicks", "optional": False, "instances": [
    {"time": f"2026-11-21T{hour:02d}:00Z", "location": f"file:///data/clicks/{hour:02d}", "available": True,
     "fingerprint": {"digest": f"ab{hour}", "files": 1, "bytes": 10}} for hour in range(24)]}
GATE = GateResult("clicks-summary", "2026-11-21T10:00Z", "quality/summary.json", "summary", OnFailure.WARN,
                  "file:///staging/summary", (ExpectationOutcome("expect_table_row_count_to_be_between", False,
                                                                  observed_value=3),), 0.5)


def attempt(**fields: object) -> AttemptRecord:
    return AttemptRecord(process="p", cluster="primary", time="2026-11-21T10:00Z", attempt=1, run_id="r", kind="RUN",
                         status="SUCCEEDED", started=STAMP, **fields)  # type: ignore[arg-type]


def test_a_record_reads_without_building_its_nested_records_and_types_them_when_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = to_json(attempt(inputs=Written(ReadInput, [INPUT] * 3), outputs=Written(PublishedOutput, [OUTPUT])))

    def built(*args: object, **kwargs: object) -> None:
        raise AssertionError("a nested record was built while the record was read")

    with monkeypatch.context() as patched:
        for kind in (ReadInput, ReadInstance, PublishedOutput):
            patched.setattr(kind, "__init__", built)
        record = AttemptRecord.parse(data, "attempt-001.json")  # 3 inputs of 24 instances each: none built
    inputs, [output] = record.inputs_read(), record.published()
    assert [len(read.instances) for read in inputs] == [24, 24, 24]
    assert inputs[0].instances[5] == ReadInstance("2026-11-21T05:00Z", "file:///data/clicks/05", True,
                                                  inputs[0].instances[5].fingerprint)
    assert inputs[0].instances[5].digest == "ab5"
    assert (output.feed, output.files, output.instance.hour) == ("clicks-summary", 2, 10)


def test_items_are_written_back_exactly_as_they_were_read() -> None:
    written = json.loads(to_json(attempt(inputs=Written(ReadInput, [INPUT]), outputs=Written(PublishedOutput, [OUTPUT]),
                                         quality=Written.of(GateResult, [GATE]))))
    unknown = {**OUTPUT, "written_by": "a newer release"}  # a field this release does not know stays in the file
    written["outputs"] = [unknown]
    again = json.loads(to_json(AttemptRecord.parse(json.dumps(written).encode(), "attempt-001.json")))
    assert (again["inputs"], again["outputs"], again["quality"]) == ([INPUT], [unknown], [GATE.to_json()])


def test_a_kind_that_reads_its_own_json_is_typed_by_it() -> None:
    record = AttemptRecord.parse(to_json(attempt(quality=Written.of(GateResult, [GATE]))), "attempt-001.json")
    assert record.gates() == [GATE]
    assert record.quality == Written(GateResult, [GATE.to_json()])
    assert Written.of(PublishedOutput, [PublishedOutput(**OUTPUT)]) == Written(PublishedOutput, [OUTPUT])


@pytest.mark.parametrize(("field", "item", "told"), [
    ("outputs", {"name": "summary", "path": "file:///x"},
     "lists a published output this toolkit cannot use (output 0: the field 'feed' is missing)"),
    ("outputs", "summary", "lists a published output this toolkit cannot use (output 0: it is not a JSON object)"),
    ("inputs", {"name": "clicks", "instances": [{"location": "file:///x"}]},
     "lists an input this toolkit cannot read (input 0: item 0 of the field 'instances': the field 'time' is "
     "missing)"),
    ("quality", {"feed": "clicks"}, "lists a quality gate's result this toolkit cannot read (result 0: it is not a "
                                    "GateResult (KeyError: 'time'))"),
    ("quality", {**GATE.to_json(), "seconds": 10 ** 400},
     "lists a quality gate's result this toolkit cannot read (result 0: it is not a GateResult (OverflowError: "),
])
def test_an_item_no_toolkit_wrote_fails_only_the_reader_that_types_it(field: str, item: object, told: str) -> None:
    document = json.loads(to_json(attempt()))
    document[field] = [item]
    record = AttemptRecord.parse(json.dumps(document).encode(), "attempt-001.json")  # the record itself reads
    assert record.status == "SUCCEEDED" and len(getattr(record, field)) == 1
    reader = {"outputs": record.published, "inputs": record.inputs_read, "quality": record.gates}[field]
    with pytest.raises(UsageError) as refused:
        reader()
    assert str(refused.value).startswith(f"The ledger's record of process 'p' at 2026-11-21T10:00Z (attempt 1) {told}")
    with pytest.raises(ValueError, match="^item 0: "):
        getattr(record, field).typed()


def test_an_instance_record_without_the_fields_of_later_releases_has_none_of_their_items() -> None:
    document = json.loads(to_json(InstanceRecord(process="p", cluster="primary", time="2026-11-21T10:00Z",
                                                 status="WAITING", attempts=0, run_id=None, updated=STAMP)))
    del document["inputs"], document["outputs"]
    record = InstanceRecord.parse(json.dumps(document).encode(), "instance.json")
    assert (record.inputs_read(), record.published(), len(record.outputs)) == ([], [], 0)
