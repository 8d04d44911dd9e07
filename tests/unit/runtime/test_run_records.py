"""Retention's and replication's run records are typed records (toolkit/core/ledger/retention_runs.py,
toolkit/core/ledger/replication_runs.py): the records earlier releases wrote read as them and write back unchanged, and
a damaged one is refused where it is read, naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import CorruptRecordError, Written, parse_record, record_document
from toolkit.core.ledger.replication_runs import ReplicationRecord
from toolkit.core.ledger.retention_runs import EvictedItem, RetentionRecord
from toolkit.services.runtime.run_record import record_text

WRITTEN = Path(__file__).parent / "run_records"


@pytest.mark.parametrize(("name", "kind"), [("retention-archive.json", RetentionRecord),
                                            ("retention-shared.json", RetentionRecord),
                                            ("replication-sources.json", ReplicationRecord)])
def test_a_record_written_as_a_dict_reads_as_its_record_and_writes_back_byte_for_byte(name: str, kind: type) -> None:
    data = (WRITTEN / name).read_bytes()
    record = parse_record(kind, data, name)
    assert record_text(record_document(record)).encode() == data


def test_the_fields_of_a_retention_record_are_typed_all_the_way_down() -> None:
    archive = parse_record(RetentionRecord, (WRITTEN / "retention-archive.json").read_bytes(), "archive.json")
    assert (archive.instances_evicted, len(archive.evicted), len(archive.refused)) == (33, 33, 1)
    first = archive.evicted[0]
    assert isinstance(first, EvictedItem) and first.archived_to is not None and first.partition is None
    assert "differs" in archive.refused[0].reason
    shared = parse_record(RetentionRecord, (WRITTEN / "retention-shared.json").read_bytes(), "shared.json")
    assert [(item.feed, item.other_path is not None) for item in shared.refused] == [("daily", True)] * 3


def test_the_sources_of_a_replication_record_are_typed() -> None:
    record = parse_record(ReplicationRecord, (WRITTEN / "replication-sources.json").read_bytes(), "r.json")
    assert [(s.source, s.files_copied, s.files_skipped, s.copier) for s in record.sources] == [
        ("edge", 1, 0, "driver"), ("primary", 0, 1, None)]


def test_a_record_of_an_older_release_reads_with_the_defaults_of_what_it_lacks() -> None:
    document = json.loads((WRITTEN / "replication-sources.json").read_text())
    for source in document["sources"]:
        del source["copier"], source["copy_tasks"]
    del document["quality"]
    record = parse_record(ReplicationRecord, json.dumps(document).encode(), "r.json")
    assert [s.copier for s in record.sources] == [None, None] and record.quality == Written(GateResult)


@pytest.mark.parametrize(("damage", "problem"), [
    ({"instances_evicted": "33"}, "the field 'instances_evicted' is '33', not an integer"),
    ({"evicted": [{"location": "data", "time": "yesterday", "path": "/x", "bytes": 1}]},
     "item 0 of the field 'evicted': the field 'time' is 'yesterday', not an instance time"),
    ({"refused": [{"location": "data", "time": "2025-12-31T05:00Z", "path": "/x"}]},
     "item 0 of the field 'refused': the field 'reason' is missing"),
])
def test_a_damaged_retention_record_is_refused_naming_the_field(damage: dict[str, object], problem: str) -> None:
    document = {**json.loads((WRITTEN / "retention-archive.json").read_text()), **damage}
    with pytest.raises(CorruptRecordError, match=problem):
        parse_record(RetentionRecord, json.dumps(document).encode(), "archive.json")
