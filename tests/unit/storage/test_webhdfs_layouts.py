"""The WebHDFS file system's writes (toolkit/core/storage/webhdfs.py) against hostile layouts, on the stand-in WebHDFS
endpoint (tests/webhdfs_server.py: a namenode and a datanode over a local folder, because no namenode runs here): a
symbolic link where a folder or a file is expected, a folder where a file is expected, the cluster root spelled
otherwise, names with colons and spaces and names at the 255-byte limit. HDFS has no links in practice (symlinks are
off by default); where one is there, the namenode refuses a path through it (UnresolvedPathException) and never
follows it, which the stand-in does too. Every tree is made and checked on the local disk behind the stand-in."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hdfs import InsecureClient

from tests.webhdfs_server import LoopbackWebHdfs
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.webhdfs import WebHdfsFileSystem

HEAD = "hdfs://test-cluster:8020"
OWN = b"not the toolkit's\n"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[LoopbackWebHdfs]:
    (tmp_path / "hdfs/c").mkdir(parents=True)
    with LoopbackWebHdfs(tmp_path / "hdfs") as endpoint:
        yield endpoint


@pytest.fixture
def fs(served: LoopbackWebHdfs) -> WebHdfsFileSystem:
    return WebHdfsFileSystem(HEAD, InsecureClient(served.url, user="toolkit", timeout=60))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the served tree with a file of its own: what the links lead to."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "own.txt").write_bytes(OWN)
    return folder


def tree(folder: Path) -> dict[str, bytes | str | None]:
    """Everything below `folder`: files by content, links as `-> target` (never followed), folders as None."""
    found: dict[str, bytes | str | None] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        found[name] = f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes() if path.is_file() else None
    return found


def one_sentence(err: pytest.ExceptionInfo[StorageError], *words: str) -> str:
    message = str(err.value)
    assert message.startswith("Cannot ") and message.endswith(".") and "\n" not in message, message
    assert "Exception" not in message and "Traceback" not in message, message
    for word in words:
        assert word in message, message
    return message


WRITES_BELOW_A_LINK: dict[str, Callable[[WebHdfsFileSystem], object]] = {
    "write_atomically": lambda fs: fs.write_atomically(f"{HEAD}/c/ledger/record.json", b"{}"),
    "create_exclusive": lambda fs: fs.create_exclusive(f"{HEAD}/c/ledger/run.lock", b"lease"),
    "mkdirs": lambda fs: fs.mkdirs(f"{HEAD}/c/ledger/2026/11"),
    "delete": lambda fs: fs.delete(f"{HEAD}/c/ledger/own.txt", recursive=False),
    "delete-recursive": lambda fs: fs.delete(f"{HEAD}/c/ledger/own.txt", recursive=True),
    "rename-into": lambda fs: fs.rename(f"{HEAD}/c/src", f"{HEAD}/c/ledger/moved"),
    "rename-out-of": lambda fs: fs.rename(f"{HEAD}/c/ledger/own.txt", f"{HEAD}/c/moved"),
}


@pytest.mark.parametrize("write", list(WRITES_BELOW_A_LINK), ids=list(WRITES_BELOW_A_LINK))
def test_a_link_where_a_folder_is_expected_is_never_written_through_on_a_webhdfs_stand_in(
        served: LoopbackWebHdfs, fs: WebHdfsFileSystem, outside: Path, write: str) -> None:
    (served.folder / "c/src").write_bytes(b"source")
    (served.folder / "c/ledger").symlink_to(outside, target_is_directory=True)
    with pytest.raises(StorageError) as refused:
        WRITES_BELOW_A_LINK[write](fs)
    one_sentence(refused, f"{HEAD}/c/ledger", "symbolic link")
    assert tree(outside) == {"own.txt": OWN}  # nothing written, created, renamed or deleted through the link
    assert tree(served.folder) == {"c": None, "c/ledger": f"-> {outside}", "c/src": b"source"}


def test_a_link_where_a_file_is_expected_is_never_written_through_on_a_webhdfs_stand_in(
        served: LoopbackWebHdfs, fs: WebHdfsFileSystem, outside: Path) -> None:
    """The link at a record's or a lock's own name: a lock is not taken over it, a write replaces the link itself
    (never its target), a delete removes the link and leaves its target."""
    link = served.folder / "c/record.json"
    link.symlink_to(outside / "own.txt")
    found = fs.status(f"{HEAD}/c/record.json")
    assert found is not None and found.is_link
    assert fs.create_exclusive(f"{HEAD}/c/record.json", b"lease") is False
    assert tree(outside) == {"own.txt": OWN} and link.is_symlink()
    fs.write_atomically(f"{HEAD}/c/record.json", b"{}")
    assert tree(served.folder) == {"c": None, "c/record.json": b"{}"}
    assert tree(outside) == {"own.txt": OWN}
    (served.folder / "c/lock").symlink_to(outside, target_is_directory=True)
    assert fs.delete(f"{HEAD}/c/lock", recursive=True) is True
    assert tree(served.folder) == {"c": None, "c/record.json": b"{}"}
    assert tree(outside) == {"own.txt": OWN}


def test_a_folder_where_a_file_is_expected_is_one_sentence_on_a_webhdfs_stand_in(
        served: LoopbackWebHdfs, fs: WebHdfsFileSystem) -> None:
    folder = served.folder / "c/record.json"
    folder.mkdir()
    (folder / "inside").write_bytes(b"kept")
    with pytest.raises(StorageError) as writing:
        fs.write_atomically(f"{HEAD}/c/record.json", b"{}")
    one_sentence(writing, f"{HEAD}/c/record.json", "it is a directory")
    with pytest.raises(StorageError) as reading:
        fs.read(f"{HEAD}/c/record.json")
    one_sentence(reading, f"{HEAD}/c/record.json", "it is a directory")
    assert fs.create_exclusive(f"{HEAD}/c/record.json", b"lease") is False  # taken: something is at its name
    with pytest.raises(StorageError) as under_a_file:
        fs.create_exclusive(f"{HEAD}/c/record.json/inside/x", b"lease")
    one_sentence(under_a_file, f"{HEAD}/c/record.json/inside is a file where a directory belongs")
    assert tree(served.folder) == {"c": None, "c/record.json": None, "c/record.json/inside": b"kept"}


@pytest.mark.parametrize("head", [HEAD, HEAD + "/", HEAD + "//"], ids=["bare", "slash", "two-slashes"])
def test_every_spelling_of_the_root_reaches_the_same_files_on_a_webhdfs_stand_in(
        served: LoopbackWebHdfs, head: str) -> None:
    fs = WebHdfsFileSystem(head, InsecureClient(served.url, user="toolkit", timeout=60))
    fs.write_atomically(f"{HEAD}/c/a/record.json", b"1")
    fs.write_atomically(f"{HEAD}//c//a/record.json", b"2")
    fs.write_atomically(f"{HEAD}/c/a/record.json/", b"3")
    assert fs.create_exclusive(f"{HEAD}//c/a/lock", b"x") is True
    assert fs.create_exclusive(f"{HEAD}/c/a/lock/", b"y") is False
    assert [status.path for status in fs.list(f"{HEAD}//c/a/")] == [f"{HEAD}/c/a/lock", f"{HEAD}/c/a/record.json"]
    assert tree(served.folder) == {"c": None, "c/a": None, "c/a/lock": b"x", "c/a/record.json": b"3"}
    with pytest.raises(StorageError) as other:
        fs.write_atomically("hdfs://other-cluster:8020/c/a/record.json", b"4")
    one_sentence(other, "is not on the file system hdfs://test-cluster:8020")
    with pytest.raises(StorageError) as dots:
        fs.write_atomically(f"{HEAD}/c/a/../b/record.json", b"5")
    one_sentence(dots, "'..' segment")
    assert tree(served.folder) == {"c": None, "c/a": None, "c/a/lock": b"x", "c/a/record.json": b"3"}


LONGEST = "é" * 127 + "x"  # 255 bytes: the longest name HDFS (and ext4) take; bytes count, not letters


@pytest.mark.parametrize("name", ["a b:c.json", "ts=2026-11-21T10:00:00Z", "%3A %20.json", LONGEST],
                         ids=["space-colon", "timestamp", "escapes", "255-bytes"])
def test_odd_names_are_written_read_renamed_and_deleted_exactly_on_a_webhdfs_stand_in(
        served: LoopbackWebHdfs, fs: WebHdfsFileSystem, name: str) -> None:
    folder = f"{HEAD}/c/{name}"
    fs.mkdirs(folder)
    fs.write_atomically(f"{folder}/{name}", b"atomic")
    assert fs.create_exclusive(f"{folder}/lock", b"lock") is True
    assert fs.read(f"{folder}/{name}") == b"atomic"
    assert [status.name for status in fs.list(folder)] == sorted(["lock", name])
    assert tree(served.folder) == {"c": None, f"c/{name}": None, f"c/{name}/{name}": b"atomic",
                                   f"c/{name}/lock": b"lock"}
    fs.rename(f"{folder}/{name}", f"{HEAD}/c/moved {name[:100]}")
    assert fs.delete(folder, recursive=True) is True
    assert tree(served.folder) == {"c": None, f"c/moved {name[:100]}": b"atomic"}


def test_a_name_longer_than_255_bytes_is_one_sentence_on_a_webhdfs_stand_in(
        served: LoopbackWebHdfs, fs: WebHdfsFileSystem) -> None:
    too_long = LONGEST + "y"
    for write in (lambda: fs.write_atomically(f"{HEAD}/c/{too_long}", b"x"),
                  lambda: fs.create_exclusive(f"{HEAD}/c/{too_long}", b"x"),
                  lambda: fs.mkdirs(f"{HEAD}/c/{too_long}/d")):
        with pytest.raises(StorageError) as refused:
            write()
        one_sentence(refused, "longer than")
    assert tree(served.folder) == {"c": None}
