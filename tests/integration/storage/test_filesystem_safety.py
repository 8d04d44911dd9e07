"""The destructive edges of the FileSystem contract (issue 12), on both implementations over `file://`
temporary trees, as in test_filesystem_contract.py: symbolic links are entries of their own, never followed,
deleted through or copied as their targets; `.` and `..` segments are refused; `delete` takes `recursive` by
keyword only and refuses the file system's root, a protected (cluster) root and the folders above it.
Trees are built and checked with the operating system directly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.storage.test_filesystem_contract import make, raises_sentence, snapshot, uri
from toolkit.core.storage.filesystem import CopyTask, FileStatus, FileSystem, StorageError
from toolkit.core.storage.local import LocalFileSystem


@pytest.fixture(params=["local", "hadoop", "hadoop-generic"])
def fs(request: pytest.FixtureRequest) -> FileSystem:
    """As in test_filesystem_contract.py: "hadoop-generic" takes the code paths of hdfs and other schemes."""
    if request.param == "local":
        return LocalFileSystem()
    from toolkit.core.storage.hadoop import HadoopFileSystem

    hadoop = HadoopFileSystem(request.getfixturevalue("spark"))
    if request.param == "hadoop-generic":
        hadoop._nio_schemes = frozenset()
    return hadoop


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """(a feed folder holding a link `feed/2026` to a folder outside it and a link `feed/f` to a file, the
    outside folder)."""
    outside = tmp_path / "outside"
    make(outside, {"keep/part-0": b"outside data", "file.txt": b"outside file"})
    make(tmp_path / "feed", {"own/part-0": b"own"})
    os.symlink(outside, tmp_path / "feed/2026")
    os.symlink(outside / "file.txt", tmp_path / "feed/f")
    return tmp_path / "feed", outside


# ------------------------------------------------------------------------------------------------- links
def test_a_link_is_listed_as_a_link_neither_file_nor_directory(fs: FileSystem, linked: tuple[Path, Path]) -> None:
    feed, _ = linked
    listed = {status.name: (status.is_dir, status.is_link, status.length) for status in fs.list(uri(feed))}
    assert listed == {"2026": (False, True, 0), "f": (False, True, 0), "own": (True, False, 0)}
    found = fs.status(uri(feed / "2026"))
    assert found is not None and (found.is_dir, found.is_link) == (False, True)
    assert fs.list_many([uri(feed)])[uri(feed)] == fs.list(uri(feed))


def test_a_listing_of_kinds_tells_links_folders_and_file_lengths_as_the_full_listing(
        fs: FileSystem, linked: tuple[Path, Path]) -> None:
    """Retention's walk lists kinds only (a local file system stats no folder or link): the same entries, kinds and
    file lengths as `list_many`, whatever the modification times."""
    feed, _ = linked
    make(feed, {"own/part-1": b"12345", "loose.txt": b"abc"})
    missing = uri(feed / "missing")

    def kinds(listed: list[FileStatus]) -> list[tuple[str, bool, bool, int]]:
        return [(status.path, status.is_dir, status.is_link, status.length) for status in listed]

    full, light = fs.list_many([uri(feed), uri(feed / "own"), missing]), fs.list_kinds_many(
        [uri(feed), uri(feed / "own"), missing])
    assert list(light) == [uri(feed), uri(feed / "own"), missing] and light[missing] == []
    assert {path: kinds(listed) for path, listed in light.items()} == {
        path: kinds(listed) for path, listed in full.items()}
    assert kinds(light[uri(feed)]) == [(uri(feed / "2026"), False, True, 0), (uri(feed / "f"), False, True, 0),
                                       (uri(feed / "loose.txt"), False, False, 3), (uri(feed / "own"), True, False, 0)]


def test_walks_do_not_follow_links(fs: FileSystem, linked: tuple[Path, Path]) -> None:
    feed, _ = linked
    listed = {(status.path, status.is_link) for status in fs.list_files(uri(feed))}
    assert listed == {(uri(feed / "own/part-0"), False), (uri(feed / "2026"), True), (uri(feed / "f"), True)}
    assert fs.total_sizes(fs.list(uri(feed))) == {uri(feed / "own"): 3, uri(feed / "2026"): 0, uri(feed / "f"): 0}


def test_a_trees_size_counts_no_link_inside_it(fs: FileSystem, linked: tuple[Path, Path]) -> None:
    """Links below a sized folder (to a folder, to a file) count nothing: the size is what deleting it frees."""
    feed, outside = linked
    os.symlink(outside, feed / "own/inner-dir")
    os.symlink(outside / "file.txt", feed / "own/inner-file")
    make(feed / "own", {"deep/er/part-1": b"12345"})
    assert fs.total_sizes([s for s in fs.list(uri(feed)) if s.name == "own"]) == {uri(feed / "own"): 8}


def test_same_files_leaves_links_out(fs: FileSystem, linked: tuple[Path, Path], tmp_path: Path) -> None:
    feed, _ = linked
    make(tmp_path / "copy", {"own/part-0": b"own"})
    stamp = os.stat(feed / "own/part-0").st_mtime_ns
    os.utime(tmp_path / "copy/own/part-0", ns=(stamp, stamp))
    assert fs.same_files(uri(feed), uri(tmp_path / "copy")) == 1


def test_deleting_a_tree_with_links_removes_the_links_never_their_targets(fs: FileSystem,
                                                                         linked: tuple[Path, Path]) -> None:
    feed, outside = linked
    before = snapshot(outside)
    assert fs.delete(uri(feed / "2026"), recursive=True) is True
    assert not os.path.lexists(feed / "2026") and snapshot(outside) == before
    assert fs.delete(uri(feed), recursive=True) is True
    assert not feed.exists() and snapshot(outside) == before


def test_a_link_is_never_copied_as_its_target(fs: FileSystem, linked: tuple[Path, Path], tmp_path: Path) -> None:
    feed, _ = linked
    stamp = os.stat(feed / "own/part-0").st_mtime_ns // 1_000_000
    tasks = [CopyTask(uri(feed / "f"), uri(tmp_path / "dst/f"), len(b"outside file"),
                      os.stat(feed / "f").st_mtime_ns // 1_000_000),
             CopyTask(uri(feed / "own/part-0"), uri(tmp_path / "dst/own/part-0"), 3, stamp)]
    results = fs.copy_files(tasks, threads=1)
    assert results[0].error is not None and "symbolic link" in results[0].error
    assert results[1].ok
    assert snapshot(tmp_path / "dst") == {"own": None, "own/part-0": b"own"}


def test_a_tree_holding_a_link_is_not_copied(fs: FileSystem, linked: tuple[Path, Path], tmp_path: Path) -> None:
    feed, _ = linked
    raises_sentence(lambda: fs.copy(uri(feed), uri(tmp_path / "dst")), uri(feed / "2026"), "symbolic link")
    raises_sentence(lambda: fs.copy(uri(feed / "f"), uri(tmp_path / "dst")), uri(feed / "f"), "symbolic link")
    assert not os.path.lexists(tmp_path / "dst")


# ----------------------------------------------------------------------------------------- dot segments
@pytest.mark.parametrize("spelled", ["feed/../outside", "feed/./own", "feed/..", "feed/own/."])
def test_dot_segments_are_refused(fs: FileSystem, linked: tuple[Path, Path], tmp_path: Path, spelled: str) -> None:
    before = snapshot(tmp_path)
    path = uri(tmp_path) + "/" + spelled
    for action in (lambda: fs.delete(path, recursive=True), lambda: fs.list(path), lambda: fs.status(path),
                   lambda: fs.mkdirs(path + "/x")):
        message = raises_sentence(action, path)
        assert "'.' or '..'" in message
    assert snapshot(tmp_path) == before


# ----------------------------------------------------------------------------------------------- delete
def test_delete_takes_recursive_by_keyword_only(fs: FileSystem, tmp_path: Path) -> None:
    make(tmp_path, {"tree/a": b"a"})
    with pytest.raises(TypeError):
        fs.delete(uri(tmp_path / "tree"))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        fs.delete(uri(tmp_path / "tree"), True)  # type: ignore[misc]
    assert snapshot(tmp_path) == {"tree": None, "tree/a": b"a"}


@pytest.mark.parametrize("root", ["file:///", "file:/"])
def test_delete_refuses_the_file_systems_root(fs: FileSystem, root: str) -> None:
    # Non-recursive only: were the refusal missing, this must still not be able to harm the machine.
    message = raises_sentence(lambda: fs.delete(root, recursive=False), "file:///", "root")
    assert "refuse" in message


def test_delete_refuses_a_protected_root_and_the_folders_above_it(fs: FileSystem, tmp_path: Path) -> None:
    make(tmp_path, {"cluster/data/x/part": b"x", "cluster-2/y": b"y"})
    fs.protect(uri(tmp_path / "cluster") + "/")
    before = snapshot(tmp_path)
    for path in (uri(tmp_path / "cluster"), "file:" + str(tmp_path / "cluster") + "/", uri(tmp_path)):
        message = raises_sentence(lambda path=path: fs.delete(path, recursive=True), uri(tmp_path / "cluster"))
        assert "root" in message
    assert snapshot(tmp_path) == before
    assert fs.delete(uri(tmp_path / "cluster/data/x"), recursive=True) is True
    assert fs.delete(uri(tmp_path / "cluster-2"), recursive=True) is True  # a sibling's name, not a parent
    assert snapshot(tmp_path) == {"cluster": None, "cluster/data": None}


def test_storage_errors_on_links_name_the_path(fs: FileSystem, linked: tuple[Path, Path]) -> None:
    feed, _ = linked
    with pytest.raises(StorageError, match="2026"):
        fs.list(uri(feed / "2026"))


@pytest.mark.parametrize("root_spelling", ["file://{}", "file:{}/"])
def test_the_first_link_below_a_root_is_found_on_the_way_down(fs: FileSystem, linked: tuple[Path, Path],
                                                              root_spelling: str) -> None:
    """Every part from below the root down to the path is looked at; the way stops where nothing exists yet; a
    path that is not under the root is refused."""
    feed, _ = linked
    root = root_spelling.format(feed.parent)
    assert fs.first_link_below(root, uri(feed / "2026/keep/part-0")) == uri(feed / "2026")
    assert fs.first_link_below(root, uri(feed / "2026")) == uri(feed / "2026")
    assert fs.first_link_below(root, uri(feed / "own/part-0")) is None
    assert fs.first_link_below(root, uri(feed / "new/2026/01")) is None
    assert fs.first_link_below(uri(feed / "2026"), uri(feed / "2026/keep")) is None  # the root's own is not looked at
    message = raises_sentence(lambda: fs.refuse_links_below(root, uri(feed / "2026/keep")), uri(feed / "2026"))
    assert message.startswith(f"Cannot write {uri(feed / '2026/keep')}: {uri(feed / '2026')}, on its way from the "
                              "cluster root, is a symbolic link"), message
    with pytest.raises(StorageError, match="is not under the cluster root"):
        fs.first_link_below(uri(feed / "own"), uri(feed.parent / "outside"))
