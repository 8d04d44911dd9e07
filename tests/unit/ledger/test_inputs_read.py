"""The inputs a run read are typed where the toolkit uses them (`ReadInput`, `ReadInstance`): a process attempt's
(with fingerprints, what late data is measured by), a batch's (with the events it consumed), and those of a record
of format 1, which name no feed."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.actions.process_runner.late_check import fingerprints_of
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.batch_records import BatchRecord
from toolkit.core.ledger.records import InstanceRecord, ReadInput, ReadInstance, Written, to_json
from toolkit.errors import UsageError

FORMAT_1 = Path(__file__).parent / "records_v1"
PROCESS_INPUT = {"name": "clicks", "feed": "clicks", "optional": False, "instances": [
    {"time": "2026-11-21T09:00Z", "location": "file:///data/clicks/09", "available": True,
     "fingerprint": {"digest": "ab", "files": 1, "bytes": 10}},
    {"time": "2026-11-21T10:00Z", "location": "file:///data/clicks/10", "available": False}]}


def test_a_process_attempts_inputs_are_typed_with_their_fingerprints() -> None:
    record = InstanceRecord(process="p", cluster="primary", time="2026-11-21T10:00Z", status="SUCCEEDED",
                            attempts=1, run_id="r", updated="2026-11-21T10:06:30Z",
                            inputs=Written(ReadInput, [PROCESS_INPUT]))
    (read,) = InstanceRecord.parse(to_json(record), "instance.json").inputs_read()
    assert (read.name, read.feed, read.optional) == ("clicks", "clicks", False)
    assert [(i.time, i.available, i.digest) for i in read.instances] == [
        ("2026-11-21T09:00Z", True, "ab"), ("2026-11-21T10:00Z", False, None)]
    assert fingerprints_of([read], ("clicks", "other")) == {"clicks": {"2026-11-21T09:00Z": "ab",
                                                                        "2026-11-21T10:00Z": None}}


def test_a_batchs_inputs_name_the_events_consumed() -> None:
    record = BatchRecord(process="p", cluster="primary", seq=3, attempt=1, run_id="r", status="SUCCEEDED",
                         started="2026-11-21T10:00:00Z", inputs=Written(ReadInput, [{"name": "raw", "feed": "raw",
                                                                                    "instances": [
                             {"time": "2026-11-21T09:00Z", "event_id": "20261121T090500000Z-r-00000000",
                              "location": "file:///raw/09"}]}]))
    (read,) = record.inputs_read()
    assert read.instances == [ReadInstance("2026-11-21T09:00Z", "file:///raw/09",
                                           event_id="20261121T090500000Z-r-00000000")]


def test_a_format_1_record_is_read_with_the_fingerprints_late_data_is_measured_by() -> None:
    record = InstanceRecord.parse((FORMAT_1 / "instance.json").read_bytes(), "instance.json")
    assert record.inputs_read() == [ReadInput("clicks", instances=[
        ReadInstance("2026-11-21T10:00Z", fingerprint=Fingerprint("ab", 1, 10))])]
    assert fingerprints_of(record.inputs_read(), ("clicks",)) == {"clicks": {"2026-11-21T10:00Z": "ab"}}


@pytest.mark.parametrize(("change", "why"), [
    ({"instances": [{"location": "x"}]}, "item 0 of the field 'instances': the field 'time' is missing"),
    ({"instances": [{"time": "2026-11-21T10:00Z", "available": "yes"}]},
     "item 0 of the field 'instances': the field 'available' is 'yes'"),
    ({"name": None}, "the field 'name' is None, not a text"),
])
def test_an_input_no_toolkit_wrote_is_refused_naming_the_record(change: dict[str, object], why: str) -> None:
    record = InstanceRecord(process="p", cluster="primary", time="2026-11-21T10:00Z", status="SUCCEEDED",
                            attempts=1, run_id="r", updated="2026-11-21T10:06:30Z",
                            inputs=Written(ReadInput, [{**PROCESS_INPUT, **change}]))
    with pytest.raises(UsageError, match=f"The ledger's record of process 'p' at 2026-11-21T10:00Z lists an input "
                                         f"this toolkit cannot read \\(input 0: {why}"):
        record.inputs_read()
