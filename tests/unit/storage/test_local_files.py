"""The writer of every file a command names (toolkit/core/storage/local_files.py): a link where the file goes is
replaced by the file, what it pointed to left as it was; the file has the user's usual permissions; a temporary file is
named so that the next writer finds a dead one's; a link on the way below the folder the caller named is found. The
commands' own tests plant links at their old, guessable temporary names (tests/unit/cli/test_metrics_command.py)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from toolkit.core.storage.local_files import left_by_dead_writers, link_on_the_way, replace_file

DEAD = 2**22 + 17  # above the kernel's largest pid: no process has it


def test_a_link_where_the_file_goes_is_replaced_and_what_it_pointed_to_left(tmp_path: Path) -> None:
    theirs, out = tmp_path / "theirs.html", tmp_path / "page.html"
    theirs.write_text("theirs\n")
    out.symlink_to(theirs)
    replace_file(out, b"ours\n")
    assert theirs.read_text() == "theirs\n"
    assert not out.is_symlink() and out.read_bytes() == b"ours\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["page.html", "theirs.html"]


def test_the_file_has_the_permissions_the_umask_gives_not_mkstemps(tmp_path: Path) -> None:
    before = os.umask(0o027)
    try:
        replace_file(tmp_path / "page.html", b"ours\n")
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "page.html").stat().st_mode) == 0o640


def test_a_killed_writers_temporary_file_is_found_by_the_next_and_only_a_dead_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "page.html"
    kept: list[str] = []

    def killed(source: str, target: str) -> None:
        kept.append(os.path.basename(source))
        raise KeyboardInterrupt  # stands for the kill between the write and the rename

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", killed)
        with pytest.raises(KeyboardInterrupt):
            replace_file(out, b"half\n")
    assert re.fullmatch(rf"\.page\.html\.{os.getpid()}\.\w+\.tmp", kept[0])
    assert list(tmp_path.iterdir()) == []  # a failure in this process removes its own
    dead = tmp_path / f".page.html.{DEAD}.abcd1234.tmp"
    live = tmp_path / f".page.html.{os.getpid()}.abcd1234.tmp"
    for path in (dead, live):
        path.write_text("left")
    (tmp_path / f".page.html.{DEAD}.link.tmp").symlink_to(dead)
    assert left_by_dead_writers(out) == [dead]


def test_a_link_on_the_way_below_the_named_folder_is_found_and_the_named_folder_itself_is_the_callers(
        tmp_path: Path) -> None:
    (tmp_path / "elsewhere" / "b").mkdir(parents=True)
    (tmp_path / "out" / "a").mkdir(parents=True)
    (tmp_path / "out" / "a" / "b").symlink_to(tmp_path / "elsewhere" / "b")
    (tmp_path / "named").symlink_to(tmp_path / "out")
    assert link_on_the_way(tmp_path / "out", tmp_path / "out" / "a" / "b" / "c" / "file.xml") == \
        tmp_path / "out" / "a" / "b"
    assert link_on_the_way(tmp_path / "out", tmp_path / "out" / "a" / "file.xml") is None
    assert link_on_the_way(tmp_path / "named", tmp_path / "named" / "a" / "file.xml") is None
    assert link_on_the_way(tmp_path / "out", tmp_path / "out" / "a" / "b") is None  # the file's own name: replaced


@pytest.mark.parametrize("length", [200, 240, 255])
def test_a_name_at_the_file_systems_limit_is_written_and_its_killed_writers_file_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int) -> None:
    """The temporary name is at most 255 bytes whatever the target's (a generated DAG of names at their limits is
    229); a shortened one still tells the targets apart, so the next writer removes only its own target's."""
    out = tmp_path / ("é" * (length // 2) + "x" * (length % 2))
    neighbour = tmp_path / (out.name[:-1] + "y")
    replace_file(out, b"whole\n")
    assert out.read_bytes() == b"whole\n"
    left: list[str] = []

    def killed(source: str, target: str) -> None:
        left.append(source)
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", killed)
        for target in (out, neighbour):
            with pytest.raises(KeyboardInterrupt):
                replace_file(target, b"half\n")
    assert all(len(os.path.basename(source).encode()) <= 255 for source in left)
    mine, theirs = (Path(source.replace(f".{os.getpid()}.", f".{DEAD}.")) for source in left)
    for path in (mine, theirs):
        path.write_text("left")
    assert left_by_dead_writers(out) == [mine]
