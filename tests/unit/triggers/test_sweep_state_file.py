"""The sweep's state, `triggers/sweep.json` (toolkit/orchestration/triggers/state.py), read and written by the
record codec: a file as the toolkit wrote it before (its own codec, indented by one) is read, the same JSON is
written, and a damaged one is refused naming the path."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import CorruptRecordError, NewerFormatError, parse_record, to_json
from toolkit.core.storage.local import LocalFileSystem
from toolkit.orchestration.triggers.state import DueInstance, ProcessState, SweepState, due_in_order

TEN = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
ELEVEN = TEN + timedelta(hours=1)

# As the hand-written codec of the release before wrote it (`json.dumps(indent=1, sort_keys=True)`).
WRITTEN_BEFORE = """{
 "format_version": 1,
 "processes": {
  "daily": {
   "due": [],
   "position": null,
   "seen": []
  },
  "hourly": {
   "due": [
    {
     "event_ms": 1795255620123,
     "started_ms": 1795255700000,
     "time": "20261121T1000Z"
    },
    {
     "event_ms": 1795255620123,
     "started_ms": null,
     "time": "20261121T1100Z"
    }
   ],
   "position": "20261121T100700123Z-run1-0a1b2c3d",
   "seen": [
    "20261121T100500000Z-run0-ffffffff",
    "20261121T100700123Z-run1-0a1b2c3d"
   ]
  }
 }
}
"""

STATE = SweepState({
    "daily": ProcessState(),
    "hourly": ProcessState("20261121T100700123Z-run1-0a1b2c3d",
                           frozenset({"20261121T100700123Z-run1-0a1b2c3d", "20261121T100500000Z-run0-ffffffff"}),
                           (DueInstance(TEN, 1795255620123, 1795255700000), DueInstance(ELEVEN, 1795255620123)))})


def test_a_state_written_by_the_release_before_is_read() -> None:
    state = parse_record(SweepState, WRITTEN_BEFORE.encode(), "triggers/sweep.json")
    assert state == STATE
    assert state.of("hourly").due_by_time() == {TEN: DueInstance(TEN, 1795255620123, 1795255700000),
                                                ELEVEN: DueInstance(ELEVEN, 1795255620123)}
    assert state.of("weekly") == ProcessState()


def test_the_same_json_is_written(tmp_path: Path) -> None:
    assert json.loads(to_json(STATE)) == json.loads(WRITTEN_BEFORE)
    file = RecordFile(LocalFileSystem(), f"file://{tmp_path}/sweep.json", SweepState)
    file.write(STATE)
    assert json.loads((tmp_path / "sweep.json").read_text()) == json.loads(WRITTEN_BEFORE)
    assert file.read() == STATE


def test_due_instances_are_kept_and_written_by_time() -> None:
    due = due_in_order({ELEVEN: DueInstance(ELEVEN, 2), TEN: DueInstance(TEN, 1)})
    assert due == (DueInstance(TEN, 1), DueInstance(ELEVEN, 2))
    written = json.loads(to_json(SweepState({"p": ProcessState(due=due)})))
    assert [item["time"] for item in written["processes"]["p"]["due"]] == ["20261121T1000Z", "20261121T1100Z"]


def _damaged(path: list[Any], value: Any) -> bytes:
    document = json.loads(WRITTEN_BEFORE)
    place = document
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = value
    return json.dumps(document).encode()


@pytest.mark.parametrize(("path", "value", "reason"), [
    (["processes", "hourly", "position"], "garbage", "the field 'position' is 'garbage', not an event id"),
    (["processes", "hourly", "position"], "", "the field 'position' is '', not an event id"),
    (["processes", "hourly", "position"], "20261321T100000000Z-run-1", "'position' is '20261321T100000000Z-run-1'"),
    (["processes", "hourly", "position"], "2026-11-21T10:00Z", "'position' is '2026-11-21T10:00Z'"),
    (["processes", "hourly", "due", 0, "time"], "2026-11-21T10:00Z",
     "item 0 of the field 'due': the field 'time' is '2026-11-21T10:00Z', not an instance key yyyyMMddTHHmmZ"),
    (["processes", "hourly", "due", 1, "event_ms"], float("inf"), "the field 'event_ms' is inf, not an integer"),
    (["processes", "hourly", "due", 1, "event_ms"], float("nan"), "the field 'event_ms' is nan, not an integer"),
    (["processes", "hourly", "due", 1, "started_ms"], "soon", "the field 'started_ms' is 'soon', not an integer"),
    (["processes", "hourly", "due"], {}, "the field 'due' is {}, not a list"),
    (["processes", "hourly", "seen"], [1], "item 0 of the field 'seen' is 1, not a text"),
    (["processes", "hourly"], [], "the entry 'hourly' of the field 'processes': it is not a JSON object"),
    (["processes"], [], "the field 'processes' is [], not an object"),
])
def test_a_damaged_state_is_refused_naming_its_path(path: list[Any], value: Any, reason: str) -> None:
    with pytest.raises(CorruptRecordError) as raised:
        parse_record(SweepState, _damaged(path, value), "ledger/triggers/sweep.json")
    message = str(raised.value)
    assert "ledger/triggers/sweep.json" in message and "not a sweep state: " in message and reason in message


def test_a_due_instance_without_its_event_instant_is_refused() -> None:
    document = json.loads(WRITTEN_BEFORE)
    del document["processes"]["hourly"]["due"][0]["event_ms"]
    with pytest.raises(CorruptRecordError, match="the field 'event_ms' is missing"):
        parse_record(SweepState, json.dumps(document).encode(), "sweep.json")


def test_a_state_of_a_newer_format_is_refused() -> None:
    with pytest.raises(NewerFormatError):
        parse_record(SweepState, _damaged(["format_version"], 2), "sweep.json")
