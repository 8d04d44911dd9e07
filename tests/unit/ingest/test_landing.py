"""The landing folder's bookkeeping (toolkit/actions/ingest/landing.py) on the pure-Python local file system, with the
fingerprints computed in Python (tests/crc32c.py) as the Java reader computes them: what a scan reads of each
file, how a batch is bounded, what the settling moves or marks, and which `_ingested` days expire."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from tests.crc32c import crc32c
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.landing import LINK, expire_ingested, next_batch, scan, settle, with_tails
from toolkit.core.entities.ingest_settings import IngestSettings
from toolkit.core.ledger.ingest_book import COMMITTED, IngestBatch, IngestBook, LandingBook, Mark, Source
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

FS = LocalFileSystem()
NOW = datetime(2026, 1, 2, 9, tzinfo=timezone.utc).timestamp()


def tails(files: Sequence[tuple[str, int]]) -> list[str]:
    """What LandingLines.fingerprints answers: CRC32C of up to 64 KiB before the offset, "" when gone or short."""
    found = []
    for uri, offset in files:
        path = Path(uri.removeprefix("file://"))
        data = path.read_bytes() if path.is_file() else b""
        found.append(crc32c(data[max(0, offset - 65536):offset]).lstrip("0") or "0"
                     if path.is_file() and len(data) >= offset else "")
    return found


def _setup(tmp_path: Path) -> tuple[IngestBook, Path, str]:
    repo, root = make_repo(tmp_path)
    book = IngestBook(FS, Ledger.of(FS, repo.cluster("primary")).layout, "events", "primary")
    return book, root / "landing" / "events", f"file://{root}/landing/events"


def _file(folder: Path, name: str, data: bytes, mtime: int) -> None:
    (folder / name).write_bytes(data)
    os.utime(folder / name, (mtime, mtime))


def test_a_scan_reads_new_files_whole_appended_bytes_from_the_mark_and_replaced_files_whole(tmp_path: Path) -> None:
    _, folder, landing = _setup(tmp_path)
    _file(folder, "new.csv", b"a\nb\n", 100)
    _file(folder, "grown.csv", b"one\ntwo\nthree\n", 200)
    _file(folder, "replaced.csv", b"ONE\nTWO\nTHREE\n", 300)
    _file(folder, ".hidden.csv", b"x\n", 50)
    (folder / "sub").mkdir()
    (folder / "link.csv").symlink_to(folder / "new.csv")
    mark = Mark(8, tails([(f"{landing}/grown.csv", 8)])[0])
    book = LandingBook("events", "primary", "e1", 3, {"grown.csv": vars(mark), "replaced.csv": vars(mark)})
    found = scan(FS, landing, book, tails)
    by_name = {s.name: (s.start, s.end, s.refused) for s in found.sources}
    assert by_name == {"new.csv": (0, 4, ""), "grown.csv": (8, 14, ""), "replaced.csv": (0, 14, ""),
                       "link.csv": (0, 0, LINK)}
    assert found.folders == ("sub",) and "hidden" not in str(found.present)


def test_a_batch_is_bounded_by_files_and_bytes_and_takes_at_least_one(tmp_path: Path) -> None:
    sources = [Source(f"f{k}", 0, 100, k) for k in range(5)]
    assert [s.name for s in next_batch(sources, IngestSettings(max_files=2))] == ["f0", "f1"]
    assert [s.name for s in next_batch(sources, IngestSettings(max_bytes=250))] == ["f0", "f1"]
    assert [s.name for s in next_batch(sources, IngestSettings(max_bytes=10))] == ["f0"]


def test_a_file_that_cannot_be_read_is_refused_and_one_gone_since_the_listing_is_left_out(tmp_path: Path) -> None:
    sources = [Source("ok", 0, 4, 1), Source("locked", 0, 4, 1), Source("gone", 0, 4, 1)]
    answers = {"ok": "abc", "locked": "!permission denied", "gone": ""}
    found = with_tails(sources, "file:///l", lambda files: [answers[uri.rsplit("/", 1)[1]] for uri, _ in files])
    assert [(s.name, s.tail, s.refused[:40]) for s in found] == [
        ("ok", "abc", ""), ("locked", "", "the file cannot be read (permission deni")]


def test_settling_moves_files_as_listed_marks_changed_ones_and_is_idempotent(tmp_path: Path) -> None:
    book, folder, landing = _setup(tmp_path)
    _file(folder, "done.csv", b"a\n", 100)
    _file(folder, "grew.csv", b"b\nc\n", 200)  # listed at 2 bytes
    (folder / "_ingested" / "20260102").mkdir(parents=True)
    (folder / "_ingested" / "20260102" / "done.csv").write_bytes(b"an earlier done.csv\n")
    batch = IngestBatch("events", "primary", "e1", 4, "r", COMMITTED, "2026-01-02T09:00:00Z", [], 2, 0, None,
                        [Source("done.csv", 0, 2, 100_000, "t1"), Source("grew.csv", 0, 2, 200_000, "t2"),
                         Source("gone.csv", 0, 2, 1, "t3")])
    start = LandingBook("events", "primary", "e1", 4, {"gone.csv": {"offset": 1, "tail": "x"}})
    first = settle(FS, landing, batch, book, start, frozenset({"done.csv", "grew.csv"}), NOW)
    assert (first.moved, first.left) == (("done.csv",), ("grew.csv",))
    assert first.book == book.landing() and first.book.next_batch == 5
    assert first.book.file_marks == {"grew.csv": Mark(2, "t2")}
    assert sorted(p.name for p in (folder / "_ingested" / "20260102").iterdir()) == ["done.csv",
                                                                                    "done.csv.e1-0000000004"]
    again = settle(FS, landing, batch, book, start, frozenset({"grew.csv"}), NOW)  # a killed run's rerun
    assert (again.moved, again.book) == ((), first.book)


def test_ingested_days_expire_after_the_retention_and_other_folders_stay(tmp_path: Path) -> None:
    _, folder, landing = _setup(tmp_path)
    for name in ("20251230", "20260101", "20260102", "notes"):
        (folder / "_ingested" / name).mkdir(parents=True)
    settings = IngestSettings()  # days(7): a day folder goes once its last possible file is 7 days old
    week = 7 * 86400
    assert expire_ingested(FS, landing, settings, NOW + week) == ["20251230", "20260101"]
    assert sorted(p.name for p in (folder / "_ingested").iterdir()) == ["20260102", "notes"]


def test_a_reused_name_at_the_length_limit_moves_under_a_name_within_it(tmp_path: Path) -> None:
    book, folder, landing = _setup(tmp_path)
    name = "é" * 120 + ".csv"  # 244 bytes: with the suffix of a reused name, 265 would be refused by the kernel
    _file(folder, name, b"a\n", 100)
    (folder / "_ingested" / "20260102").mkdir(parents=True)
    (folder / "_ingested" / "20260102" / name).write_bytes(b"the first one\n")
    batch = IngestBatch("events", "primary", "e1", 7, "r", COMMITTED, "2026-01-02T09:00:00Z", [], 1, 0, None,
                        [Source(name, 0, 2, 100_000, "t")])
    done = settle(FS, landing, batch, book, LandingBook("events", "primary", "e1", 7), frozenset({name}), NOW)
    assert done.moved == (name,)
    [kept] = [p.name for p in (folder / "_ingested" / "20260102").iterdir() if p.name != name]
    assert len(kept.encode()) <= 255 and kept.endswith(".e1-0000000007") and kept.startswith("é" * 100)


def test_a_damaged_landing_book_is_refused_naming_its_path(tmp_path: Path) -> None:
    import pytest

    from toolkit.core.ledger.records import CorruptRecordError

    book, _, _ = _setup(tmp_path)
    book.write_landing(LandingBook("events", "primary", "e1", 3, {"a.csv": {"offset": "x", "tail": "t"}}))
    with pytest.raises(CorruptRecordError, match=r"landing\.json is damaged \(a mark is not an offset and a tail"):
        book.landing()
    (Path(book.folder.removeprefix("file://")) / "landing.json").write_text("{not json")
    with pytest.raises(CorruptRecordError, match=r"landing\.json is damaged"):
        book.landing()
