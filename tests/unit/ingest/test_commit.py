"""Committing a micro-batch (toolkit/actions/ingest/commit.py, toolkit/core/ledger/ingest_book.py): the plan, each
staged file renamed into its instance, the instance book, then committed; a batch planned by a killed attempt is
finished from its plan, each file moved once; a committed batch changes nothing when applied again; a lost staged file
is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.commit import commit_batch, move_into_place
from toolkit.core.ledger.ingest_book import COMMITTED, PLANNED, BatchFile, IngestBatch, IngestBook
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem

FS = LocalFileSystem()


def staged_batch(root: Path, batch_id: int = 0) -> IngestBatch:
    staging = root / "working" / "ingest" / "events" / "staging" / f"e1-{batch_id:010d}"
    files = []
    for hour, rows in ((10, 3), (11, 2)):
        staged = staging / "data" / f"_instance=2026010{1}T{hour}00Z" / "part-00000.parquet"
        staged.parent.mkdir(parents=True)
        staged.write_bytes(f"rows of {hour}:00 from batch {batch_id}".encode())
        target = f"file://{root}/data/events/2026/01/01/{hour}/part-e1-{batch_id:010d}.parquet"
        files.append(BatchFile(f"file://{staged}", target, f"2026-01-01T{hour}:00Z", rows))
    return IngestBatch("events", "primary", "e1", batch_id, "run1", PLANNED, "2026-11-22T10:00:00Z", files, 5, 0,
                       "2026-01-01T11:59:00Z")


@pytest.fixture
def setup(tmp_path: Path) -> tuple[IngestBook, Path]:
    repo, root = make_repo(tmp_path)
    ledger = Ledger.of(FS, repo.cluster("primary"))
    return IngestBook(FS, ledger.layout, "events", "primary"), root


def test_a_batch_is_planned_moved_booked_then_committed(setup: tuple[IngestBook, Path]) -> None:
    book, root = setup
    plan = staged_batch(root)
    done = commit_batch(FS, book, plan, plan.max_time, root=f"file://{root}")
    assert done.state == COMMITTED and book.batch("e1", 0) == done
    assert (root / "data/events/2026/01/01/10/part-e1-0000000000.parquet").read_bytes() == b"rows of 10:00 from batch 0"
    assert (root / "data/events/2026/01/01/11/part-e1-0000000000.parquet").read_bytes() == b"rows of 11:00 from batch 0"
    instances = book.instances()
    assert (instances.watermark, instances.open, instances.applied) == (
        "2026-01-01T11:59:00Z", {"2026-01-01T10:00Z": 3, "2026-01-01T11:00Z": 2}, ["e1-0"])
    # applied again (a replay that found it committed would not even call this): the book does not count it twice
    commit_batch(FS, book, done, done.max_time, root=f"file://{root}")
    assert book.instances().open == {"2026-01-01T10:00Z": 3, "2026-01-01T11:00Z": 2}


def test_a_batch_planned_by_a_killed_attempt_is_finished_from_its_plan(setup: tuple[IngestBook, Path]) -> None:
    book, root = setup
    plan = staged_batch(root, 7)
    book.write_batch(plan)
    move_into_place(FS, plan.files[0])  # killed after the first rename
    assert book.batch("e1", 7) == plan
    found = book.batch("e1", 7)
    assert found is not None and found.state == PLANNED
    commit_batch(FS, book, found, found.max_time, root=f"file://{root}")
    assert sorted(p.name for p in (root / "data/events/2026/01/01").rglob("part-*")) == [
        "part-e1-0000000007.parquet", "part-e1-0000000007.parquet"]
    assert book.batch("e1", 7).state == COMMITTED  # type: ignore[union-attr]


def test_a_staged_file_lost_before_its_rename_is_refused_naming_both(setup: tuple[IngestBook, Path]) -> None:
    book, root = setup
    each = staged_batch(root).files[0]
    Path(each.staged.removeprefix("file://")).unlink()
    with pytest.raises(StorageError, match=r"^The batch file .*part-00000.parquet is gone and its target .*"
                                           r"part-e1-0000000000.parquet was never written"):
        move_into_place(FS, each)


@pytest.mark.parametrize("planned", [False, True], ids=["staged", "planned-by-a-killed-attempt"])
def test_a_target_below_a_link_is_refused_before_anything_is_planned_or_moved(setup: tuple[IngestBook, Path],
                                                                               tmp_path: Path, planned: bool) -> None:
    """`data` leads outside the cluster root: the batch's files would be renamed there."""
    book, root = setup
    plan = staged_batch(root)
    if planned:
        book.write_batch(plan)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "data").symlink_to(outside)
    staged = sorted(p.relative_to(root) for p in (root / "working").rglob("*.parquet"))
    with pytest.raises(StorageError, match=rf"^Cannot write file://{root}/data/events/2026/01/01/10: "
                                           rf"file://{root}/data, on its way from the cluster root, is a symbolic "
                                           r"link, which the toolkit never follows"):
        commit_batch(FS, book, plan, plan.max_time, root=f"file://{root}")
    assert list(outside.iterdir()) == []  # nothing written through the link
    assert sorted(p.relative_to(root) for p in (root / "working").rglob("*.parquet")) == staged
    assert book.batch("e1", 0) == (plan if planned else None) and book.instances().open == {}
