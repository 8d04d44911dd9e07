"""The WebHDFS file system's promises that the ledger relies on, on the loopback endpoint (tests/webhdfs_server.py)
and, when one is given, on a real cluster: set FEED_TOOLKIT_WEBHDFS_URL (the namenode's HTTP address,
`http://namenode:9870`) and FEED_TOOLKIT_WEBHDFS_ROOT (an HDFS folder these tests may fill and empty, e.g.
`/tmp/feed-toolkit-tests`), optionally FEED_TOOLKIT_WEBHDFS_USER (simple authentication) or
FEED_TOOLKIT_WEBHDFS_AUTH=kerberos (a ticket from `kinit`), as the `hdfs` package's own tests take HDFSCLI_TEST_URL.
Trees are made and checked with the `hdfs` package's client directly, never through the implementation under test.
The full FileSystem contract (test_filesystem_contract.py) runs on the loopback endpoint too."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hdfs import Client, InsecureClient

from tests.webhdfs_server import LoopbackWebHdfs
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.webhdfs import WebHdfsFileSystem, connect

HEAD = "hdfs://test-cluster:8020"  # the file system's URIs; WebHDFS is reached at the URL


@dataclass
class Cluster:
    fs: WebHdfsFileSystem
    client: Client  # the hdfs package's own client: makes and checks trees
    root: str  # an absolute HDFS folder, this test's own

    def uri(self, relative: str) -> str:
        return f"{HEAD}{self.root}/{relative}"

    def path(self, relative: str) -> str:
        return f"{self.root}/{relative}"

    def tree(self) -> dict[str, bytes | None]:
        """What is under the root: file contents by relative path, None for folders."""
        found: dict[str, bytes | None] = {}
        for folder, folders, files in self.client.walk(self.root):
            relative = folder[len(self.root):].lstrip("/")
            for name in folders:
                found[f"{relative}/{name}".lstrip("/")] = None
            for name in files:
                with self.client.read(f"{folder}/{name}") as reader:
                    found[f"{relative}/{name}".lstrip("/")] = reader.read()
        return dict(sorted(found.items()))


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebHdfsFileSystem, Client, str]]:
    url = os.environ.get("FEED_TOOLKIT_WEBHDFS_URL")
    if url:
        base = os.environ.get("FEED_TOOLKIT_WEBHDFS_ROOT")
        if not base:
            pytest.fail("FEED_TOOLKIT_WEBHDFS_URL is set without FEED_TOOLKIT_WEBHDFS_ROOT, the HDFS folder the tests "
                        "may write: set both.")
        kerberos = os.environ.get("FEED_TOOLKIT_WEBHDFS_AUTH", "simple") == "kerberos"
        fs = connect(HEAD, url, os.environ.get("FEED_TOOLKIT_WEBHDFS_USER"), kerberos)
        yield fs, fs._client, base.rstrip("/")
        return
    with LoopbackWebHdfs(tmp_path_factory.mktemp("hdfs")) as served:
        client = InsecureClient(served.url, user="toolkit")
        yield WebHdfsFileSystem(HEAD, client), client, "/tests"


@pytest.fixture
def cluster(endpoint: tuple[WebHdfsFileSystem, Client, str]) -> Iterator[Cluster]:
    fs, client, base = endpoint
    root = f"{base}/{uuid.uuid4().hex[:12]}"
    client.makedirs(root)
    yield Cluster(fs, client, root)
    client.delete(root, recursive=True)


def test_create_exclusive_once_on_loopback_webhdfs(cluster: Cluster) -> None:
    lock = cluster.uri("locks/feed/2026-11-21T10.lock")
    assert cluster.fs.create_exclusive(lock, b"first") is True
    assert cluster.fs.create_exclusive(lock, b"second") is False
    assert cluster.tree() == {"locks": None, "locks/feed": None, "locks/feed/2026-11-21T10.lock": b"first"}


def test_create_exclusive_race_has_one_winner_on_loopback_webhdfs(cluster: Cluster) -> None:
    results: dict[int, bool] = {}
    start = threading.Barrier(4)

    def contend(worker: int) -> None:
        start.wait()
        results[worker] = cluster.fs.create_exclusive(cluster.uri("lock"), f"worker {worker}".encode())

    threads = [threading.Thread(target=contend, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [worker for worker, won in results.items() if won]
    assert len(winners) == 1 and cluster.tree() == {"lock": f"worker {winners[0]}".encode()}


def test_write_atomically_replaces_and_leaves_no_temporary_on_loopback_webhdfs(cluster: Cluster) -> None:
    cluster.client.write(cluster.path("d/record"), b"old content, longer than the new one")
    cluster.fs.write_atomically(cluster.uri("d/record"), b"new")
    cluster.fs.write_atomically(cluster.uri("d/other/record"), b"")
    assert cluster.tree() == {"d": None, "d/other": None, "d/other/record": b"", "d/record": b"new"}
    assert cluster.fs.read(cluster.uri("d/record")) == b"new"


def test_status_list_and_glob_on_loopback_webhdfs(cluster: Cluster) -> None:
    for name, data in (("d/b", b"bb"), ("d/a", b"a"), ("d/sub/deep", b"deep")):
        cluster.client.write(cluster.path(name), data)
    listed = cluster.fs.list(cluster.uri("d"))
    assert [(s.path, s.length, s.is_dir) for s in listed] == [
        (cluster.uri("d/a"), 1, False), (cluster.uri("d/b"), 2, False), (cluster.uri("d/sub"), 0, True)]
    raw = cluster.client.status(cluster.path("d/b"))
    assert cluster.fs.status(cluster.uri("d/b")).modification_time == raw["modificationTime"]
    assert cluster.fs.status(cluster.uri("d/missing")) is None
    assert [s.path for s in cluster.fs.glob(cluster.uri("d/{a,sub}*"))] == [cluster.uri("d/a"), cluster.uri("d/sub")]
    with pytest.raises(StorageError, match="Cannot list .*: it is a file, not a directory."):
        cluster.fs.list(cluster.uri("d/a"))
    with pytest.raises(StorageError, match="Cannot read .*/d: "):
        cluster.fs.read(cluster.uri("d"))


def test_rename_refuses_an_existing_target_on_loopback_webhdfs(cluster: Cluster) -> None:
    cluster.client.write(cluster.path("src"), b"source")
    cluster.client.write(cluster.path("dir/x"), b"x")
    with pytest.raises(StorageError, match="the target exists"):
        cluster.fs.rename(cluster.uri("src"), cluster.uri("dir"))  # HDFS's old rename would move it into dir
    cluster.fs.rename(cluster.uri("src"), cluster.uri("published/2026/part"))
    assert cluster.tree() == {"dir": None, "dir/x": b"x", "published": None, "published/2026": None,
                              "published/2026/part": b"source"}


def test_mkdirs_and_delete_on_loopback_webhdfs(cluster: Cluster) -> None:
    cluster.client.write(cluster.path("f"), b"keep")
    cluster.fs.mkdirs(cluster.uri("a/b"))
    with pytest.raises(StorageError, match="is a file where a directory belongs"):
        cluster.fs.mkdirs(cluster.uri("f/sub"))
    with pytest.raises(StorageError, match="the directory is not empty"):
        cluster.fs.delete(cluster.uri("a"), recursive=False)
    assert cluster.fs.delete(cluster.uri("a"), recursive=True) is True
    assert cluster.fs.delete(cluster.uri("a"), recursive=True) is False
    assert cluster.tree() == {"f": b"keep"}


def test_a_path_of_another_file_system_is_refused_on_loopback_webhdfs(cluster: Cluster, tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="is not on the file system hdfs://test-cluster:8020"):
        cluster.fs.read(f"file://{tmp_path}/x")
