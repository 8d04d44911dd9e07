"""`remove_tree` on the real disk: links removed and never followed, a tree deeper than Python's recursion limit, an
entry gone meanwhile, and an error that stops the walk with every descriptor closed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkit.core.storage import local_trees
from toolkit.core.storage.local_trees import remove_tree


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_tree_goes_and_the_folders_its_links_lead_to_stay(tmp_path: Path) -> None:
    outside = tmp_path / "another-teams-folder"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep/data.csv").write_text("theirs\n")
    tree = tmp_path / "feed/2026"
    (tree / "01/01/00").mkdir(parents=True)
    (tree / "01/01/00/part-0").write_text("x")
    (tree / "01/02").mkdir()
    (tree / "01/02/link-to-folder").symlink_to(outside)
    (tree / "01/link-to-file").symlink_to(outside / "keep/data.csv")
    (tree / "01/dangling").symlink_to(tmp_path / "nowhere")
    remove_tree(str(tree))
    assert not tree.exists() and (tmp_path / "feed").is_dir()
    assert (outside / "keep/data.csv").read_text() == "theirs\n"


def test_a_link_given_as_the_tree_is_removed_not_followed(tmp_path: Path) -> None:
    (tmp_path / "target/sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "target")
    remove_tree(str(tmp_path / "link"))
    assert not os.path.lexists(tmp_path / "link") and (tmp_path / "target/sub").is_dir()


def test_a_tree_deeper_than_the_recursion_limit_goes(tmp_path: Path) -> None:
    top = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fd = top
    for _ in range(3000):  # 6,000 characters of path: deeper than PATH_MAX too, made relative to each folder
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        if fd != top:
            os.close(fd)
        fd = child
    with open(os.open("leaf", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd), "w") as leaf:
        leaf.write("x")
    os.close(fd)
    os.close(top)
    before = _open_descriptors()
    remove_tree(str(tmp_path / "d"))
    assert os.listdir(tmp_path) == [] and _open_descriptors() == before


def test_an_entry_gone_meanwhile_counts_as_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "t/a").mkdir(parents=True)
    (tmp_path / "t/a/f").write_text("x")
    unlink = os.unlink

    def removed_by_another_first(name: str, *, dir_fd: int) -> None:
        unlink(name, dir_fd=dir_fd)
        raise FileNotFoundError(name)

    monkeypatch.setattr(local_trees.os, "unlink", removed_by_another_first)
    remove_tree(str(tmp_path / "t"))
    assert not (tmp_path / "t").exists()


def test_an_error_stops_the_walk_with_the_rest_in_place_and_no_descriptor_left_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for hour in ("00", "01"):
        (tmp_path / f"day/{hour}").mkdir(parents=True)
        (tmp_path / f"day/{hour}/part-0").write_text("x")
    (tmp_path / "day/01/locked").write_text("x")
    unlink = os.unlink

    def refused(name: str, *, dir_fd: int) -> None:
        if name == "locked":
            raise PermissionError(13, "Permission denied", name)
        unlink(name, dir_fd=dir_fd)

    monkeypatch.setattr(local_trees.os, "unlink", refused)
    before = _open_descriptors()
    with pytest.raises(PermissionError):
        remove_tree(str(tmp_path / "day"))
    assert _open_descriptors() == before
    assert (tmp_path / "day/01/locked").exists()


def test_the_measured_folders_get_the_bytes_of_their_files_as_they_go_links_not_counted(tmp_path: Path) -> None:
    outside = tmp_path / "another-teams-folder"
    outside.mkdir()
    (outside / "big").write_bytes(b"x" * 1000)
    day = tmp_path / "feed/2026/01/01"
    for hour, files in (("00", {"part-0": 3, "part-1": 4}), ("01", {"sub/part-0": 5}), ("02", {})):
        (day / hour).mkdir(parents=True)
        for name, size in files.items():
            (day / hour / name).parent.mkdir(parents=True, exist_ok=True)
            (day / hour / name).write_bytes(b"y" * size)
    (day / "01/link").symlink_to(outside / "big")
    (day / "stray").write_bytes(b"z" * 7)  # in the day but in no measured folder
    measured = {str(day / hour): 0 for hour in ("00", "01", "02")}
    remove_tree(str(day), measured)
    assert measured == {str(day / "00"): 7, str(day / "01"): 5, str(day / "02"): 0}
    assert not day.exists() and (outside / "big").stat().st_size == 1000


def test_the_tree_itself_can_be_measured(tmp_path: Path) -> None:
    hour = tmp_path / "feed/2026/01/01/00"
    (hour / "a/b").mkdir(parents=True)
    (hour / "a/b/part").write_bytes(b"1234")
    (hour / "part").write_bytes(b"56")
    measured = {str(hour): 0}
    remove_tree(f"{hour}/", measured)  # spelled with a trailing slash: measured by its plain path
    assert measured == {str(hour): 6} and not hour.exists()
