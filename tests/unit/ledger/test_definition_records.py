"""The `definition` a record carries is a typed `Provenance` (a nested record of the codec,
toolkit/core/ledger/records.py), no longer a dict: the files earlier releases wrote (written_with_definitions/, see its
README) read as one, a record from before definitions were recorded reads as None, and each writes back byte for
byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.batch_records import BatchRecord
from toolkit.core.ledger.evictions import EvictionBatch, _json
from toolkit.core.ledger.ingest_book import IngestBatch
from toolkit.core.ledger.records import AttemptRecord, DatasetEvent, InstanceRecord, event_json, parse_record, to_json

WRITTEN = Path(__file__).parent / "written_with_definitions"
CLEAN = Provenance("v1:" + "3" * 64, "a" * 40)
DIRTY = Provenance("v1:" + "5" * 64, "b" * 40, dirty=True)
NO_GIT = Provenance("v1:" + "4" * 64)


def _evictions(batch: EvictionBatch) -> bytes:
    return (_json(batch) + "\n").encode()


CASES: list[tuple[str, Callable[[bytes, str], Any], Callable[[Any], bytes], Provenance | None]] = [
    ("attempt.json", lambda data, path: parse_record(AttemptRecord, data, path), to_json, CLEAN),
    ("instance.json", lambda data, path: parse_record(InstanceRecord, data, path), to_json, DIRTY),
    ("instance-before-definitions.json", lambda data, path: parse_record(InstanceRecord, data, path), to_json, None),
    ("event.json", DatasetEvent.parse, event_json, NO_GIT),
    ("batch.json", lambda data, path: parse_record(BatchRecord, data, path), to_json, CLEAN),
    ("evictions.json", EvictionBatch.parse, _evictions, NO_GIT),
    ("ingest-batch.json", lambda data, path: parse_record(IngestBatch, data, path), to_json, DIRTY),
]


@pytest.mark.parametrize(("name", "read", "write", "definition"), CASES, ids=[case[0] for case in CASES])
def test_a_record_written_before_reads_its_definition_typed_and_writes_back_unchanged(
        name: str, read: Callable[[bytes, str], Any], write: Callable[[Any], bytes],
        definition: Provenance | None) -> None:
    data = (WRITTEN / name).read_bytes()
    record = read(data, name)
    assert record.definition == definition
    assert write(record) == data


@pytest.mark.parametrize("damaged", [{}, {"definition": "v1:x", "commit": 5}, {"definition": None},
                                     {"definition": "v1:x", "dirty": "no"}, "v1:x", [1]],
                         ids=["empty", "commit a number", "no hash", "dirty a word", "a text", "a list"])
def test_a_damaged_definition_reads_as_unknown_and_the_record_stays_readable(damaged: object) -> None:
    """What a record says of its definition is a note for people (`toolkit ledger`, the report) and the plan: a
    damaged one is unknown, as if none was recorded, and never makes its run's record (or a month's roll-up, which
    holds it) unreadable for the process runner."""
    document = json.loads((WRITTEN / "instance.json").read_bytes())
    document["definition"] = damaged
    record = parse_record(InstanceRecord, json.dumps(document).encode(), "instance.json")
    assert (record.definition, record.status, record.run_id) == (None, "SUCCEEDED", "run-1")
