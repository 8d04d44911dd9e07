"""The stage-then-swap helper (toolkit/core/storage/publish.py) on both file systems over `file://` trees: the pure
Python one and Hadoop's through the test session's JVM. Faults are injected by a wrapper around the real file
system: a StorageError at the Nth change (all or none), a guard that refuses (a lost lease), and a `Crash` (a
BaseException, as a kill: nothing undone) before each change of a swap, after which the crash rule must leave a
whole version in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.storage.test_filesystem_contract import make, snapshot, uri
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.core.storage.publish import Publication, recover
from toolkit.errors import ToolkitError

OLD = {"10/part-0": b"old 0", "10/part-1": b"old 1", "10/_SUCCESS": b""}
NEW = {".10.staging/part-0": b"new 0", ".10.staging/sub/part-2": b"new 2"}


@pytest.fixture(params=["local", "hadoop"])
def fs(request: pytest.FixtureRequest) -> FileSystem:
    if request.param == "local":
        return LocalFileSystem()
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return HadoopFileSystem(request.getfixturevalue("spark"))


class Crash(BaseException):
    """A kill at this point: not an error the publication handles."""


class Faulty:
    """The real file system, raising `fault` at its Nth change (rename, write, delete), counted from 1."""

    def __init__(self, fs: FileSystem, at: int, fault: BaseException) -> None:
        self.fs, self.at, self.fault, self.changes = fs, at, fault, 0

    def _change(self) -> None:
        self.changes += 1
        if self.changes == self.at:
            raise self.fault

    def rename(self, source: str, target: str) -> None:
        self._change()
        self.fs.rename(source, target)

    def write_atomically(self, path: str, data: bytes) -> None:
        self._change()
        self.fs.write_atomically(path, data)

    def delete(self, path: str, recursive: bool) -> bool:
        self._change()
        return self.fs.delete(path, recursive=recursive)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fs, name)


def data(tree: dict[str, bytes | None], top: str) -> dict[str, bytes | None]:
    """The files of `tree` below `top`, relative to it, without the flag."""
    return {k[len(top) + 1:]: v for k, v in tree.items()
            if k.startswith(top + "/") and v is not None and not k.endswith("_SUCCESS")}


def publish_two(fs: Any, root: Path, guard: Any = None) -> None:
    """Two outputs of one attempt: `a` replaces a published version (then its flag), `b` is new."""
    with Publication(fs, guard) if guard else Publication(fs) as publication:
        publication.swap(uri(root / "a/.10.staging"), uri(root / "a/10"), uri(root / "a/.10.replaced"))
        publication.write(uri(root / "a/10/_SUCCESS"), b"")
        publication.swap(uri(root / "b/.10.staging"), uri(root / "b/10"), uri(root / "b/.10.replaced"))


def two_outputs(root: Path) -> dict[str, bytes | None]:
    make(root, {f"a/{k}": v for k, v in {**OLD, **NEW}.items()})
    make(root, {f"b/{k}": v for k, v in NEW.items()})
    return snapshot(root)


def test_a_swap_replaces_the_published_version_and_the_aside_goes_at_the_commit(fs: FileSystem,
                                                                               tmp_path: Path) -> None:
    two_outputs(tmp_path)
    publish_two(fs, tmp_path)
    assert snapshot(tmp_path) == {"a": None, "a/10": None, "a/10/_SUCCESS": b"", "a/10/part-0": b"new 0",
                                  "a/10/sub": None, "a/10/sub/part-2": b"new 2", "b": None, "b/10": None,
                                  "b/10/part-0": b"new 0", "b/10/sub": None, "b/10/sub/part-2": b"new 2"}


@pytest.mark.parametrize("at", [1, 2, 3, 4])  # a's rename aside, a's rename in, a's flag, b's rename in
def test_a_storage_error_at_any_step_of_several_outputs_leaves_none_published(fs: FileSystem, tmp_path: Path,
                                                                             at: int) -> None:
    before = two_outputs(tmp_path)
    faulty = Faulty(fs, at, StorageError(f"Cannot rename the {at}th: injected failure."))

    with pytest.raises(StorageError, match="injected failure"):
        publish_two(faulty, tmp_path)

    assert snapshot(tmp_path) == before  # the earlier version back in place, both stagings as they were


def test_a_refusing_guard_before_the_second_output_undoes_the_first(fs: FileSystem, tmp_path: Path) -> None:
    before = two_outputs(tmp_path)
    checks = []

    def guard() -> None:
        checks.append(len(checks))
        if len(checks) == 4:  # before b's rename: the lease ran out meanwhile
            raise ToolkitError("The lock x was not renewed in time: this run publishes nothing.")

    with pytest.raises(ToolkitError, match="not renewed in time"):
        publish_two(fs, tmp_path, guard)

    assert checks == [0, 1, 2, 3]  # one check right before each step
    assert snapshot(tmp_path) == before


def test_a_refusing_guard_publishes_nothing_at_all(fs: FileSystem, tmp_path: Path) -> None:
    before = two_outputs(tmp_path)

    def lost() -> None:
        raise ToolkitError("The lock x was taken over by another run.")

    with pytest.raises(ToolkitError):
        publish_two(fs, tmp_path, lost)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("at", [1, 2, 3, 4, 5])  # before: rename aside, rename in, flag, delete aside; none
def test_killed_at_each_step_of_a_swap_the_crash_rule_leaves_a_whole_version(fs: FileSystem, tmp_path: Path,
                                                                            at: int) -> None:
    make(tmp_path, {**OLD, **NEW})
    target, staging, aside = uri(tmp_path / "10"), uri(tmp_path / ".10.staging"), uri(tmp_path / ".10.replaced")
    faulty = Faulty(fs, at, Crash())

    def swap_then_flag() -> None:
        with Publication(faulty) as publication:  # type: ignore[arg-type]
            publication.swap(staging, target, aside)
            publication.write(f"{target}/_SUCCESS", b"")

    if at <= 4:
        with pytest.raises(Crash):
            swap_then_flag()
    else:
        swap_then_flag()

    left = snapshot(tmp_path)
    assert (".10.replaced" in left) == (at in (2, 3, 4))  # nothing undone: a kill leaves the aside
    recover(fs, target, [aside])

    after = snapshot(tmp_path)
    assert ".10.replaced" not in after
    published = data(after, "10")
    staged = data(NEW, ".10.staging")
    if at <= 2:  # killed before the new version was in place: the old one is back, the staging still whole
        assert published == data(OLD, "10") and after["10/_SUCCESS"] == b""
        assert data(after, ".10.staging") == staged
    else:
        assert published == staged and ".10.staging" not in after
        assert ("10/_SUCCESS" in after) == (at > 3)


def test_recover_puts_back_the_last_aside_and_deletes_the_others(fs: FileSystem, tmp_path: Path) -> None:
    make(tmp_path, {".10.replaced-1/part-0": b"older", ".10.replaced-2/part-0": b"published"})
    deleted = recover(fs, uri(tmp_path / "10"), [uri(tmp_path / ".10.replaced-1"), uri(tmp_path / ".10.replaced-2"),
                                                uri(tmp_path / ".10.replaced-3")])
    assert deleted == 1
    assert snapshot(tmp_path) == {"10": None, "10/part-0": b"published"}
    make(tmp_path, {".10.replaced-4/part-0": b"replaced by 10"})
    assert recover(fs, uri(tmp_path / "10"), [uri(tmp_path / ".10.replaced-4")]) == 1
    assert snapshot(tmp_path) == {"10": None, "10/part-0": b"published"}


def test_a_swap_never_moves_staging_into_a_target_that_appeared(fs: FileSystem, tmp_path: Path) -> None:
    """Between the look at the target and the rename, another writer created it: the rename refuses, and the
    publication undoes nothing of the other writer's."""
    make(tmp_path, NEW)
    before = snapshot(tmp_path)

    class Intruder(Faulty):
        def rename(self, source: str, target: str) -> None:
            make(tmp_path, {"10/theirs": b"another writer's"})
            super().rename(source, target)

    publication = Publication(Intruder(fs, 0, Crash()))  # type: ignore[arg-type]
    with pytest.raises(StorageError, match="exists"), publication:
        publication.swap(uri(tmp_path / ".10.staging"), uri(tmp_path / "10"), uri(tmp_path / ".10.replaced"))

    assert snapshot(tmp_path) == {**before, "10": None, "10/theirs": b"another writer's"}


def test_a_partition_switch_is_undone_with_the_publication(spark: Any, tmp_path: Path) -> None:
    """On the session's metastore: a switched partition points back to its old directory and an added one is
    dropped (its files kept) when a later step of the publication fails."""
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.partition_versions import switch

    catalog = catalog_for(spark, None)
    spark.sql("CREATE DATABASE IF NOT EXISTS publish_test")
    spark.sql("DROP TABLE IF EXISTS publish_test.versions")
    spark.sql(f"CREATE EXTERNAL TABLE publish_test.versions (id INT) PARTITIONED BY (ds STRING) STORED AS PARQUET "
              f"LOCATION '{uri(tmp_path / 'table')}'")
    make(tmp_path, {"table/ds=1/part-0": b"old", "table/.toolkit-partitions/v2/ds=1/part-0": b"new",
                    "table/ds=2/part-0": b"added"})
    old, new = uri(tmp_path / "table/ds=1"), uri(tmp_path / "table/.toolkit-partitions/v2/ds=1")
    catalog.add_partition("publish_test", "versions", {"ds": "1"}, old)
    before = snapshot(tmp_path)

    def fails() -> None:
        raise StorageError("Cannot rename the next output: injected failure.")

    with pytest.raises(StorageError, match="injected"), Publication(LocalFileSystem()) as publication:
        switch(publication, catalog, "publish_test", "versions", {"ds": "1"}, old, new)
        switch(publication, catalog, "publish_test", "versions", {"ds": "2"}, None, uri(tmp_path / "table/ds=2"))
        assert catalog.partition_location("publish_test", "versions", {"ds": "1"}) == new
        assert catalog.partition_location("publish_test", "versions", {"ds": "2"}) is not None
        publication.step(fails, lambda: None)

    assert catalog.partition_location("publish_test", "versions", {"ds": "1"}) == old
    assert catalog.partition_location("publish_test", "versions", {"ds": "2"}) is None
    assert snapshot(tmp_path) == before  # no file touched: the directories are the caller's to move back
