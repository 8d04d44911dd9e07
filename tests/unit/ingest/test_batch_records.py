"""An ingest batch's record: its staged files and the landing bytes it read are records of their own, checked where
the batch is read; the files earlier releases wrote read the same and write back unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolkit.core.ledger.ingest_book import IngestBatch, IngestBook, Source
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import CorruptRecordError, parse_record, to_json
from toolkit.core.storage.local import LocalFileSystem

WRITTEN = Path(__file__).parent / "batch_records"


def test_a_batch_written_before_its_files_were_typed_reads_as_typed_records_and_writes_back_the_same() -> None:
    data = (WRITTEN / "e1-0000000004.json").read_bytes()
    batch = parse_record(IngestBatch, data, "batches/e1-0000000004.json")
    assert [(each.time, each.rows) for each in batch.files] == [("2026-11-21T10:00Z", 3), ("", 1)]
    assert batch.sources == [Source("clicks 10:00.csv", 0, 120, 1763719200000, "1a2b3c4d"),
                             Source("link.csv", 0, 0, 1763719201000, "", "a symbolic link")]
    assert to_json(batch) == data


def test_a_batch_of_an_older_release_reads_with_the_defaults_of_what_it_lacks() -> None:
    batch = parse_record(IngestBatch, (WRITTEN / "e1-0000000001.json").read_bytes(), "batches/e1-0000000001.json")
    assert batch.sources == [Source("clicks 10:00.csv", 0, 120, 1763719200000)]
    assert batch.definition is None and batch.files[0].target.endswith("part-e1-0000000004.parquet")


@pytest.mark.parametrize(("damage", "problem"), [
    (lambda d: d["files"][1].pop("rows"), "item 1 of the field 'files': the field 'rows' is missing"),
    (lambda d: d["sources"][0].update(end="120"), "item 0 of the field 'sources': the field 'end' is '120', not an "
                                                  "integer"),
    (lambda d: d.update(files=[["staged", "target"]]), "item 0 of the field 'files': it is not a JSON object"),
])
def test_a_damaged_file_or_source_is_refused_where_the_batch_is_read_naming_it(
        tmp_path: Path, damage: Callable[[dict[str, Any]], object], problem: str) -> None:
    document = json.loads((WRITTEN / "e1-0000000004.json").read_text())
    damage(document)
    book = IngestBook(LocalFileSystem(), LedgerLayout(f"file://{tmp_path}"), "events", "primary")
    folder = tmp_path / "ingest" / "events" / "batches"
    folder.mkdir(parents=True)
    (folder / "e1-0000000004.json").write_text(json.dumps(document))
    with pytest.raises(CorruptRecordError, match=r"e1-0000000004\.json is damaged \(" + problem.replace("(", r"\(")):
        book.batch("e1", 4)
