"""The ledger's record files (toolkit/core/ledger/record_files.py), the one reader and writer of the records an action
keeps one per file or one per instance: none until written, the same record read back, a damaged file refused
naming its path, a rewrite seen whole."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.ledger.record_files import InstanceRecords, RecordFile
from toolkit.core.ledger.records import CorruptRecordError, Minute
from toolkit.core.storage.local import LocalFileSystem

FS = LocalFileSystem()
TEN = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Note:
    feed: str
    time: Minute
    count: int = 0


def test_an_instance_record_is_none_until_written_then_read_back_in_its_instances_file(tmp_path: Path) -> None:
    notes = InstanceRecords(FS, f"file://{tmp_path}/notes", Note)
    assert notes.read(TEN) is None
    notes.write(Note("clicks", "2026-11-21T10:00Z", 3), TEN)
    assert notes.read(TEN) == Note("clicks", "2026-11-21T10:00Z", 3)
    assert notes.path(TEN) == f"file://{tmp_path}/notes/20261121T1000Z.json"
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["20261121T1000Z.json"]
    notes.write(Note("clicks", "2026-11-21T10:00Z", 4), TEN)
    assert notes.read(TEN) == Note("clicks", "2026-11-21T10:00Z", 4)
    assert sorted(p.name for p in (tmp_path / "notes").iterdir()) == ["20261121T1000Z.json"]  # no temporary left


def test_a_field_with_a_default_may_be_missing_from_an_older_file(tmp_path: Path) -> None:
    (tmp_path / "note.json").write_text('{"format": 1, "feed": "clicks", "time": "2026-11-21T10:00Z"}\n')
    assert RecordFile(FS, f"file://{tmp_path}/note.json", Note).read() == Note("clicks", "2026-11-21T10:00Z", 0)


@pytest.mark.parametrize(("text", "reason"), [
    ("{not json", "not valid JSON"),
    ("[]", "it is not a JSON object"),
    ('{"format": 1, "time": "2026-11-21T10:00Z"}', "the field 'feed' is missing"),
    ('{"format": 1, "feed": "clicks", "time": "10:00"}', "the field 'time' is '10:00', not an instance time"),
    ('{"format": 1, "feed": "clicks", "time": "2026-11-21T10:00Z", "count": "3"}', "the field 'count' is '3'"),
])
def test_a_damaged_file_is_refused_naming_its_path_and_what_is_wrong(tmp_path: Path, text: str, reason: str) -> None:
    (tmp_path / "note.json").write_text(text)
    with pytest.raises(CorruptRecordError) as raised:
        RecordFile(FS, f"file://{tmp_path}/note.json", Note).read()
    assert f"{tmp_path}/note.json" in str(raised.value) and reason in str(raised.value)
