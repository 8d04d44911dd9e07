"""A run's lineage record, `lineage/<yyyyMMdd>/<HH>/<run uuid>.json` (toolkit/services/openlineage/store.py), read
and written by the record codec: a record as the release before wrote it (its own codec, one compact line) is read,
written again byte for byte, and a damaged one is refused naming the path."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import CorruptRecordError, parse_record, to_json
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.openlineage.store import KeptEvent, LineageBook, LineageRecord

RUN = "01890d7e-6a3e-7c2b-9b8f-000000000001"
STARTED = datetime(2026, 11, 21, 9, 59, 1, 123000, tzinfo=timezone.utc)
START = {"eventType": "START", "eventTime": "2026-11-21T09:59:01.123Z", "run": {"runId": RUN, "facets": {}},
         "job": {"namespace": "ns", "name": "process.hourly", "facets": {}}, "inputs": [], "outputs": []}
COMPLETE = {**START, "eventType": "COMPLETE", "eventTime": "2026-11-21T10:00:02.5Z"}

# As the hand-written codec of the release before wrote it (`json.dumps(separators=(",", ":"))`, insertion order).
WRITTEN_BEFORE = (
    '{"run":"01890d7e-6a3e-7c2b-9b8f-000000000001","started":"2026-11-21T09:59:01.123Z","events":['
    '{"sent":true,"event":{"eventType":"START","eventTime":"2026-11-21T09:59:01.123Z","run":{"runId":'
    '"01890d7e-6a3e-7c2b-9b8f-000000000001","facets":{}},"job":{"namespace":"ns","name":"process.hourly","facets":{}},'
    '"inputs":[],"outputs":[]}},'
    '{"sent":false,"event":{"eventType":"COMPLETE","eventTime":"2026-11-21T10:00:02.5Z","run":{"runId":'
    '"01890d7e-6a3e-7c2b-9b8f-000000000001","facets":{}},"job":{"namespace":"ns","name":"process.hourly","facets":{}},'
    '"inputs":[],"outputs":[]}}],"format_version":1}\n')

RECORD = LineageRecord(RUN, STARTED).with_event(START, True).with_event(COMPLETE, False)


def test_a_record_written_by_the_release_before_is_read() -> None:
    record = parse_record(LineageRecord, WRITTEN_BEFORE.encode(), "lineage/x.json")
    assert record == RECORD
    assert record.run == RUN and record.started == STARTED and record.unsent == [1]
    assert record.events == (KeptEvent(True, START), KeptEvent(False, COMPLETE))


def test_the_same_bytes_are_written_and_the_start_to_the_millisecond(tmp_path: Path) -> None:
    assert to_json(RECORD) == WRITTEN_BEFORE.encode()
    precise = LineageRecord(RUN, STARTED.replace(microsecond=123456))
    assert json.loads(to_json(precise))["started"] == "2026-11-21T09:59:01.123Z"


def test_the_book_keeps_it_in_the_start_hour_and_reads_it_back(tmp_path: Path) -> None:
    book = LineageBook(LocalFileSystem(), LedgerLayout(f"file://{tmp_path}/working/ledger"))
    book.save(RECORD)
    [(path, record)] = list(book.records())
    assert path.endswith(f"/ledger/lineage/20261121/09/{RUN}.json")
    assert Path(path.removeprefix("file://")).read_bytes() == WRITTEN_BEFORE.encode()
    assert record == RECORD


def _damaged(change: dict[str, Any] | None = None, event: dict[str, Any] | None = None) -> bytes:
    document = json.loads(WRITTEN_BEFORE)
    document["events"][1].update(event or {})
    document.update(change or {})
    return json.dumps(document).encode()


@pytest.mark.parametrize(("data", "reason"), [
    (_damaged({"started": "2026-11-21"}), "the field 'started' is '2026-11-21', not an instant"),
    (_damaged({"started": "2026-11-21T09:59:01.123"}), "not an instant"),  # no offset: no instant
    (_damaged({"started": "soon"}), "the field 'started' is 'soon', not an instant"),
    (_damaged({"started": None}), "the field 'started' is None, not an instant"),
    (_damaged({"run": 1}), "the field 'run' is 1, not a text"),
    (_damaged({"events": {}}), "the field 'events' is {}, not a list"),
    (_damaged(event={"sent": "yes"}), "item 1 of the field 'events': the field 'sent' is 'yes', not true or false"),
    (_damaged(event={"event": [1]}), "item 1 of the field 'events': the field 'event' is [1], not an object"),
    (b'{"run": 1}', "the field 'run' is 1"),
    (b'{"run": "r"}', "the field 'started' is missing"),
    (b"[]", "it is not a JSON object"),
])
def test_a_damaged_record_is_refused_naming_its_path(data: bytes, reason: str) -> None:
    with pytest.raises(CorruptRecordError) as raised:
        parse_record(LineageRecord, data, "ledger/lineage/20261121/09/r.json")
    message = str(raised.value)
    assert "ledger/lineage/20261121/09/r.json" in message and "not a lineage record: " in message
    assert reason in message
