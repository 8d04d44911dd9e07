"""The distributed copier (jvm/DistributedCopy.java through bulk_copy.BulkCopier.copy_on_executors) as a Spark job of
the test session (local[2]: its executor threads run the tasks): byte-for-byte copies with mtimes, modes and CRC32C,
outcomes in the tasks' order, tasks balanced by bytes, a failed file reported alone and leaving no target. On a
real standalone cluster with two executors: tests/integration/replication/test_distributed_replication.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.storage.test_bulk_copy import assert_copied, make_tree, task, tasks_for_tree
from toolkit.core.storage.bulk_copy import BulkCopier
from toolkit.core.storage.filesystem import CopyTask


@pytest.fixture(scope="module")
def copier(spark) -> BulkCopier:
    return BulkCopier(spark, threads=2)


def test_a_tree_is_copied_by_the_tasks_byte_for_byte_in_the_tasks_order(copier: BulkCopier,
                                                                        roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    make_tree(primary)
    tasks = tasks_for_tree(primary, backup)
    spread = copier.copy_on_executors(tasks, slices=3)
    assert_copied(spread.results, tasks, primary, backup)
    assert len(spread.slices) == 3
    assert sum(s.files for s in spread.slices) == len(tasks)
    assert sum(s.bytes for s in spread.slices) == sum(t.length for t in tasks)
    assert {s.executor for s in spread.slices} == {"driver"}  # local[2]: the driver's executor
    assert all(s.attempt == 0 and s.seconds >= 0 for s in spread.slices)


def test_the_tasks_are_balanced_by_bytes_and_never_outnumber_the_files(copier: BulkCopier,
                                                                      roots: tuple[Path, Path]) -> None:
    """One big file and many small ones: the big one alone in its task, the small ones share the others."""
    primary, backup = roots
    sizes = {"big": 4 << 20, **{f"small-{k:02d}": 256 << 10 for k in range(16)}}
    for name, size in sizes.items():
        (primary / name).write_bytes(os.urandom(size))
    tasks = tasks_for_tree(primary, backup)
    spread = copier.copy_on_executors(tasks, slices=3)
    assert all(result.ok for result in spread.results)
    loads = sorted((s.files, s.bytes) for s in spread.slices)
    assert loads == [(1, 4 << 20), (8, 2 << 20), (8, 2 << 20)]
    few = copier.copy_on_executors(tasks[:2], slices=8)
    assert len(few.slices) == 2
    assert copier.copy_on_executors([], slices=4).results == []


def test_a_file_that_changed_since_it_was_listed_fails_alone_and_leaves_no_target(
        copier: BulkCopier, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    for name in ("a", "b", "c"):
        (primary / name).write_bytes(name.encode() * 1000)
    tasks = tasks_for_tree(primary, backup)
    stale = CopyTask(tasks[1].source, tasks[1].target, tasks[1].length + 1, tasks[1].modification_time)
    spread = copier.copy_on_executors([tasks[0], stale, tasks[2]], slices=2)
    assert [result.ok for result in spread.results] == [True, False, True]
    assert spread.results[1].error is not None
    assert spread.results[1].error.startswith("the source changed since it was listed: its length is 1000")
    assert not (backup / "b").exists()
    assert (backup / "a").read_bytes() == b"a" * 1000 and (backup / "c").read_bytes() == b"c" * 1000
    assert sum(s.bytes for s in spread.slices) == 2000


def test_a_missing_source_is_reported_as_such(copier: BulkCopier, roots: tuple[Path, Path]) -> None:
    primary, backup = roots
    (primary / "gone").write_bytes(b"x")
    listed = task(primary / "gone", backup / "gone")
    (primary / "gone").unlink()
    spread = copier.copy_on_executors([listed], slices=2)
    assert spread.results[0].error is not None and "NoSuchFileException" in spread.results[0].error
    assert not (backup / "gone").exists()
