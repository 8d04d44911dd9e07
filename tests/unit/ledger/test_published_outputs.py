"""A published output is typed where the toolkit uses it (`PublishedOutput`), and kept in its records as the JSON
the toolkit always wrote; a record of format 1 that names only an output and its path is still read, and refused
with one sentence only where its feed is needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.core.ledger.records import AttemptRecord, InstanceRecord, PublishedOutput, Written, to_json
from toolkit.errors import UsageError

FORMAT_1 = Path(__file__).parent / "records_v1"
FILE_OUTPUT = {"name": "summary", "feed": "clicks-summary", "time": "2026-11-21T10:00Z",
               "path": "file:///data/summary/2026/11/21/10", "files": 2, "bytes": 11, "replaced": False}
TABLE_OUTPUT = {"name": "sessions", "feed": "sessions", "time": "2026-11-21T00:00Z", "table": "web.sessions",
                "partition": {"ds": "2026-11-21"}, "path": "file:///warehouse/web.db/sessions/ds=2026-11-21",
                "files": 1, "bytes": 5, "replaced": True}


def _instance(*outputs: dict[str, object]) -> InstanceRecord:
    return InstanceRecord(process="p", cluster="primary", time="2026-11-21T10:00Z", status="SUCCEEDED", attempts=1,
                          run_id="r", updated="2026-11-21T10:06:30Z",
                          outputs=Written(PublishedOutput, list(outputs)))


def test_file_and_table_outputs_are_typed_and_written_back_exactly_as_they_were() -> None:
    record = InstanceRecord.parse(to_json(_instance(FILE_OUTPUT, TABLE_OUTPUT)), "instance.json")
    file_output, table_output = record.published()
    assert (file_output.feed, file_output.instance.isoformat(), file_output.files, file_output.table) == \
        ("clicks-summary", "2026-11-21T10:00:00+00:00", 2, None)
    assert (table_output.table, table_output.partition, table_output.replaced) == \
        ("web.sessions", {"ds": "2026-11-21"}, True)
    assert [file_output.to_json(), table_output.to_json()] == [FILE_OUTPUT, TABLE_OUTPUT]
    assert json.loads(to_json(record))["outputs"] == [FILE_OUTPUT, TABLE_OUTPUT]


def test_a_format_1_record_is_read_and_its_outputs_refused_only_where_they_are_used() -> None:
    attempt = AttemptRecord.parse((FORMAT_1 / "attempt-001.json").read_bytes(), "attempt-001.json")
    assert attempt.outputs == Written(PublishedOutput, [{"name": "summary", "path": "file:///x/data/2026/11/21/10"}])
    with pytest.raises(UsageError) as refused:
        attempt.published()
    assert str(refused.value) == (
        "The ledger's record of process 'hourly-clicks-summary' at 2026-11-21T10:00Z (attempt 1) lists a published "
        "output this toolkit cannot use (output 0: the field 'feed' is missing); it was written by an older "
        "toolkit: run the instance again with --force to record it anew.")


@pytest.mark.parametrize(("change", "why"), [
    ({"time": "2026-11-21T10:00:00Z"}, "the field 'time' is '2026-11-21T10:00:00Z', not an instance time"),
    ({"files": "2"}, "the field 'files' is '2', not an integer"),
    ({"replaced": "no"}, "the field 'replaced' is 'no', not true or false"),
])
def test_an_output_that_breaks_its_fields_is_named(change: dict[str, object], why: str) -> None:
    with pytest.raises(UsageError, match=why):
        _instance({**FILE_OUTPUT, **change}).published()


def test_an_output_the_runner_builds_is_the_json_the_toolkit_always_wrote() -> None:
    built = PublishedOutput("summary", "clicks-summary", "2026-11-21T10:00Z", "file:///data/summary/2026/11/21/10",
                            2, 11, replaced=False)
    assert built.to_json() == FILE_OUTPUT
