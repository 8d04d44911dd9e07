"""The local file system's atomic write and exclusive create on the real disk: folders made only when missing, a
temporary of a killed process with the same pid stepped over, a name at the file system's length limit."""

from __future__ import annotations

import itertools
import os
import stat
from pathlib import Path

import pytest

from toolkit.core.storage import local
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem


def uri(path: Path) -> str:
    return f"file://{path}"


def test_a_write_into_missing_folders_makes_them_and_leaves_no_temporary(tmp_path: Path) -> None:
    LocalFileSystem().write_atomically(uri(tmp_path / "ledger/2026/run.json"), b"{}\n")
    assert (tmp_path / "ledger/2026/run.json").read_bytes() == b"{}\n"
    assert os.listdir(tmp_path / "ledger/2026") == ["run.json"]


def test_a_temporary_left_by_a_killed_process_of_the_same_pid_is_stepped_over_and_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_temporary_names", itertools.count(7))
    left = tmp_path / f".record.{os.getpid()}.7.tmp"
    left.write_bytes(b"another's")
    LocalFileSystem().write_atomically(uri(tmp_path / "record"), b"ours")
    assert (tmp_path / "record").read_bytes() == b"ours"
    assert left.read_bytes() == b"another's"
    assert sorted(os.listdir(tmp_path)) == [left.name, "record"]


def test_a_name_at_the_length_limit_is_written_through_a_shortened_temporary(tmp_path: Path) -> None:
    name = "r" * 255
    LocalFileSystem().write_atomically(uri(tmp_path / name), b"x")
    assert os.listdir(tmp_path) == [name]


def test_an_exclusive_create_makes_missing_folders_and_refuses_an_existing_file(tmp_path: Path) -> None:
    fs = LocalFileSystem()
    assert fs.create_exclusive(uri(tmp_path / "locks/feed.0"), b"first")
    assert not fs.create_exclusive(uri(tmp_path / "locks/feed.0"), b"second")
    assert (tmp_path / "locks/feed.0").read_bytes() == b"first"


def test_a_file_where_a_folder_belongs_is_an_error_naming_the_path(tmp_path: Path) -> None:
    (tmp_path / "locks").write_text("a file")
    fs = LocalFileSystem()
    with pytest.raises(StorageError, match="Cannot create file://.*/locks/feed.0: Not a directory"):
        fs.create_exclusive(uri(tmp_path / "locks/feed.0"), b"x")
    with pytest.raises(StorageError, match="Cannot write file://.*/locks/run.json: Not a directory"):
        fs.write_atomically(uri(tmp_path / "locks/run.json"), b"x")


def test_a_file_put_where_the_folder_belongs_while_the_lock_is_created_is_an_error_not_a_held_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    makedirs = os.makedirs

    def another_writes_a_file_first(name: str, exist_ok: bool = False) -> None:
        Path(name).write_text("a file")  # between the create that found no folder and the folders' making
        makedirs(name, exist_ok=exist_ok)

    monkeypatch.setattr(local.os, "makedirs", another_writes_a_file_first)
    with pytest.raises(StorageError, match="Cannot create file://.*/locks/feed.0: Not a directory"):
        LocalFileSystem().create_exclusive(uri(tmp_path / "locks/feed.0"), b"x")


def test_a_file_written_atomically_gets_the_umasks_mode_as_every_other_write(tmp_path: Path) -> None:
    """A ledger record written here is read by the status page and by other users as one Spark's Hadoop client
    wrote: `0666 & ~umask`, not the temporary file's 0600 (the wait before Spark writes a waiting instance's records
    this way, issue 71)."""
    previous = os.umask(0o027)
    try:
        LocalFileSystem().write_atomically(f"file://{tmp_path}/instance.json", b"{}\n")
        LocalFileSystem().write_atomically(f"file://{tmp_path}/instance.json", b"{}\n")  # replacing one too
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "instance.json").stat().st_mode) == 0o640
