"""A file system over Hadoop's WebHDFS REST API (the `hdfs` package's client), for the command line: it reads
and writes an HDFS cluster's ledger without a JVM.

Paths stay the cluster's own URIs (`hdfs://nn:8020/working/ledger/...`): everything under the cluster's root
(`head`, its scheme and authority) maps to the same absolute path in WebHDFS at `url` (the cluster's readonly
interface, `http://namenode:9870`). Calls used: GETFILESTATUS, LISTSTATUS, OPEN, CREATE (two steps: the namenode
answers 307 with a datanode's URL, the data goes there), MKDIRS, RENAME (with `renameoptions`, Hadoop's rename2),
DELETE, SETTIMES. How the file-system promises hold:
- `create_exclusive`: CREATE with overwrite=false; the namenode refuses an existing path
  (FileAlreadyExistsException, or AlreadyBeingCreatedException while another client writes it).
- `write_atomically`: CREATE of a temporary name beside the target, then RENAME with renameoptions=OVERWRITE,
  which replaces a file in one namenode operation (as `HadoopFileSystem` does through FileContext).
- `rename`: RENAME with renameoptions=NONE: it refuses an existing target, where the plain RENAME (Hadoop's old
  rename) moves a source into an existing folder or answers a bare `false`.
Bytes pass through Python (`copy`, `copy_files`): the command line copies nothing large; replication runs in Spark.
"""

from __future__ import annotations

import builtins
import contextlib
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

import requests
from hdfs import Client, HdfsError, InsecureClient

from toolkit.core.storage.filesystem import (
    CopyResult,
    CopyTask,
    FileStatus,
    FileSystem,
    StorageError,
    hidden_sibling,
    plain_uri,
)
from toolkit.core.storage.globs import expand_braces, glob_paths
from toolkit.uris import normalize_uri, split_uri

T = TypeVar("T")
# What a RemoteException means, in the words of a sentence about the path (never the Java class name).
_REASONS = {
    "FileNotFoundException": "it does not exist",
    "FileAlreadyExistsException": "the target exists",
    "AlreadyBeingCreatedException": "the target exists (another client is creating it)",
    "ParentNotDirectoryException": "a parent is a file",
    "PathIsNotEmptyDirectoryException": "the directory is not empty",
    "AccessControlException": "permission denied",
    "SafeModeException": "the namenode is in safe mode",
    "StandbyException": "the namenode is a standby",
    "UnresolvedPathException": "a symbolic link is on its way, which the toolkit never follows",
    "UnresolvedLinkException": "a symbolic link is on its way, which the toolkit never follows",
    "PathComponentTooLongException": "a name in it is longer than the namenode allows (255 bytes by default)",
}
_EXISTS = ("FileAlreadyExistsException", "AlreadyBeingCreatedException")


def connect(head: str, url: str, user: str | None, kerberos: bool, timeout: float = 60) -> WebHdfsFileSystem:
    """The file system of the cluster rooted at `head` (`hdfs://nn:8020`), through WebHDFS at `url`: as `user`
    (simple authentication; None: the login user), or with Kerberos (SPNEGO through the `hdfs` package's
    extension, the `kerberos` extra; the ticket comes from the ticket cache, `kinit`)."""
    client: Client
    if kerberos:
        try:
            from hdfs.ext.kerberos import KerberosClient
        except ImportError:
            raise StorageError(f"Cannot reach {head} through WebHDFS with Kerberos: the Kerberos extension is not "
                               "installed; pip install 'feed-toolkit[kerberos]'.") from None
        client = KerberosClient(url, timeout=timeout)
    else:
        client = InsecureClient(url, user=user, timeout=timeout)
    return WebHdfsFileSystem(head, client)


class WebHdfsFileSystem(FileSystem):
    """The paths under `head` (a cluster's root URI) through a WebHDFS client; any other path is refused."""

    def __init__(self, head: str, client: Client) -> None:
        self._head = split_uri(head)[0]
        self._client = client

    # ---------------------------------------------------------------------------------------------- paths
    def _path(self, uri: str) -> str:
        head, path = split_uri(plain_uri(uri))
        if head != self._head:
            raise StorageError(f"Cannot use {normalize_uri(uri)}: it is not on the file system {self._head} that "
                               f"this WebHDFS client reaches.")
        return _one_slash(path)

    def _uri(self, path: str) -> str:
        return normalize_uri(self._head + path)

    def _status(self, path: str, raw: dict[str, Any]) -> FileStatus:
        kind = raw.get("type")
        mtime = int(raw.get("modificationTime", 0))
        if kind == "SYMLINK":
            return FileStatus(self._uri(path), 0, mtime, False, is_link=True)
        is_dir = kind == "DIRECTORY"
        return FileStatus(self._uri(path), 0 if is_dir else int(raw.get("length", 0)), mtime, is_dir)

    # --------------------------------------------------------------------------------------------- errors
    def _call(self, action: str, uris: str, call: Callable[[], T]) -> T:
        """`call()`, its failure as one StorageError sentence: 'Cannot <action> <uris>: <reason>.'"""
        try:
            return call()
        except HdfsError as err:
            raise StorageError(f"Cannot {action} {uris}: {_reason(err)}.") from None
        except requests.RequestException as err:
            raise StorageError(f"Cannot {action} {uris}: the WebHDFS endpoint {self._client.url} cannot be reached "
                               f"({type(err).__name__}).") from None

    # ---------------------------------------------------------------------------------------------- reads
    def exists(self, path: str) -> bool:
        return self.status(path) is not None

    def status(self, path: str) -> FileStatus | None:
        hdfs_path = self._path(path)

        def found() -> dict[str, Any] | None:
            try:
                return dict(self._client.status(hdfs_path))
            except HdfsError as err:
                if err.exception == "FileNotFoundException":
                    return None
                raise

        raw = self._call("read the status of", self._uri(hdfs_path), found)
        return None if raw is None else self._status(hdfs_path, raw)

    def list(self, path: str) -> builtins.list[FileStatus]:
        hdfs_path = self._path(path)
        shown = self._uri(hdfs_path)
        listed = self._call("list", shown, lambda: self._client._list_status(hdfs_path).json())
        entries = listed["FileStatuses"]["FileStatus"]
        # LISTSTATUS of a file answers the file itself, with an empty pathSuffix
        if len(entries) == 1 and not entries[0].get("pathSuffix"):
            raise StorageError(f"Cannot list {shown}: it is a file, not a directory.")
        base = hdfs_path.rstrip("/")
        return sorted(self._status(f"{base}/{raw['pathSuffix']}", raw) for raw in entries)

    def glob(self, pattern: str) -> builtins.list[FileStatus]:
        """Listed one component at a time (WebHDFS has no glob call): each listing is kept for the statuses."""
        pattern_path = self._path(pattern)
        seen: dict[str, FileStatus] = {}

        def names(folder: str) -> builtins.list[str]:
            try:
                children = self.list(self._uri(folder))
            except StorageError:
                return []
            seen.update((self._path(child.path), child) for child in children)
            return [child.name for child in children]

        def exists(hdfs_path: str) -> bool:
            found = self.status(self._uri(hdfs_path))
            if found is not None:
                seen[hdfs_path] = found
            return found is not None

        matches = {match for expanded in expand_braces(pattern_path) for match in glob_paths(expanded, exists, names)}
        return sorted(seen[match] for match in matches)

    def read(self, path: str) -> bytes:
        hdfs_path = self._path(path)

        def read_all() -> bytes:
            with self._client.read(hdfs_path) as reader:
                return bytes(reader.read())

        try:
            return self._call("read", self._uri(hdfs_path), read_all)
        except StorageError:
            found = self.status(self._uri(hdfs_path))  # OPEN of a folder is "not found": say what is there
            if found is not None and found.is_dir:
                raise StorageError(f"Cannot read {self._uri(hdfs_path)}: it is a directory.") from None
            raise

    # --------------------------------------------------------------------------------------------- writes
    def mkdirs(self, path: str) -> None:
        hdfs_path = self._path(path)
        shown = self._uri(hdfs_path)
        self._parent_folder("create the directory", shown, hdfs_path)

    def write_atomically(self, path: str, data: bytes) -> None:
        hdfs_path = self._path(path)
        shown = self._uri(hdfs_path)
        found = self.status(shown)
        if found is not None and found.is_dir:
            raise StorageError(f"Cannot write {shown}: it is a directory.")
        folder = _parent(hdfs_path)
        self._parent_folder("write", shown, folder)
        temporary_name = hidden_sibling(hdfs_path.rsplit("/", 1)[-1], f".{secrets.token_hex(8)}.tmp")
        temporary = f"{folder.rstrip('/')}/{temporary_name}"
        with self._removed_on_failure(temporary):
            self._call("write", shown, lambda: self._client.write(temporary, data, overwrite=False))
            self._call("write", shown, lambda: self._client._rename(temporary, destination=hdfs_path,
                                                                    renameoptions="OVERWRITE"))

    def _parent_folder(self, action: str, shown: str, folder: str) -> None:
        """Create `folder` (MKDIRS); a file in its place or above it is named in the error."""
        try:
            self._client.makedirs(folder)
        except HdfsError as err:
            raise StorageError(f"Cannot {action} {shown}: {self._file_above(folder) or _reason(err)}.") from None
        except requests.RequestException:
            self._call(action, shown, lambda: self._client.makedirs(folder))

    def _file_above(self, hdfs_path: str) -> str | None:
        """'<uri> is a file' for the first file (or symbolic link) on the way down to `hdfs_path`, where a folder
        belongs."""
        names = [name for name in hdfs_path.split("/") if name]
        for depth in range(1, len(names) + 1):
            current = self.status(self._uri("/" + "/".join(names[:depth])))
            if current is None:
                return None
            if current.is_link:
                return f"{current.path} is a symbolic link where a directory belongs, which the toolkit never follows"
            if not current.is_dir:
                return f"{current.path} is a file where a directory belongs"
        return None

    @contextmanager
    def _removed_on_failure(self, temporary: str) -> Iterator[None]:
        try:
            yield
        except BaseException:
            # the failure that matters is the one raised; a temporary left behind has a hidden name
            with contextlib.suppress(HdfsError, requests.RequestException):
                self._client.delete(temporary)
            raise

    def create_exclusive(self, path: str, data: bytes) -> bool:
        hdfs_path = self._path(path)
        shown = self._uri(hdfs_path)
        try:
            self._client.write(hdfs_path, data, overwrite=False)
        except HdfsError as err:
            if err.exception in _EXISTS and self.exists(shown):
                return False
            above = self._file_above(_parent(hdfs_path))
            raise StorageError(f"Cannot create {shown}: {above or _reason(err)}.") from None
        except requests.RequestException:
            self._call("create", shown, lambda: self._client.write(hdfs_path, data, overwrite=False))
        return True

    def rename(self, source: str, target: str) -> None:
        source_path, target_path = self._path(source), self._path(target)
        shown = f"{self._uri(source_path)} to {self._uri(target_path)}"
        if self.status(self._uri(source_path)) is None:
            raise StorageError(f"Cannot rename {shown}: the source does not exist.")
        self._parent_folder("rename", shown, _parent(target_path))
        self._call("rename", shown, lambda: self._client._rename(source_path, destination=target_path,
                                                                 renameoptions="NONE"))

    def _delete(self, path: str, *, recursive: bool) -> bool:
        hdfs_path = self._path(path)
        shown = self._uri(hdfs_path)
        return bool(self._call("delete", shown, lambda: self._client.delete(hdfs_path, recursive=recursive)))

    # --------------------------------------------------------------------------------------------- copies
    def copy(self, source: str, target: str) -> None:
        source_path, target_path = self._path(source), self._path(target)
        shown = f"{self._uri(source_path)} to {self._uri(target_path)}"
        found = self.status(self._uri(source_path))
        if found is None:
            raise StorageError(f"Cannot copy {shown}: the source does not exist.")
        if self.exists(self._uri(target_path)):
            raise StorageError(f"Cannot copy {shown}: the target exists.")
        self.refuse_links(source, target)
        if not found.is_dir:
            data = self._call("copy", shown, lambda: self.read(self._uri(source_path)))
            self._call("copy", shown, lambda: self._client.write(target_path, data, overwrite=False))
            return
        self._call("copy", shown, lambda: self._client.makedirs(target_path))
        for child in self.list(self._uri(source_path)):
            self.copy(child.path, self._uri(f"{target_path.rstrip('/')}/{child.name}"))

    def copy_files(self, tasks: Sequence[CopyTask], threads: int = 4,
                   preserve_permission: bool = True) -> builtins.list[CopyResult]:
        """Read, CREATE (overwrite), SETTIMES, from a thread pool; permissions are the target's defaults."""
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            return builtins.list(pool.map(self._copy_one, tasks))

    def _copy_one(self, task: CopyTask) -> CopyResult:
        try:
            data = self.read(task.source)
            if len(data) != task.length:
                return CopyResult(task, len(data), error=f"{len(data)} bytes read where the listing said "
                                                         f"{task.length}: the source changed during the run; run "
                                                         "again.")
            target = self._path(task.target)
            shown = self._uri(target)
            self._call("copy to", shown, lambda: self._client.write(target, data, overwrite=True))
            self._call("stamp", shown, lambda: self._client.set_times(target,
                                                                      modification_time=task.modification_time))
            return CopyResult(task, len(data))
        except StorageError as err:
            return CopyResult(task, error=str(err))

    def checksum(self, path: str) -> str | None:
        """None: the command line compares no checksums (replication, which does, runs through Hadoop in Spark)."""
        found = self.status(path)
        if found is None or found.is_dir:
            raise StorageError(f"Cannot checksum {normalize_uri(path)}: it is not a file.")
        return None


def _one_slash(hdfs_path: str) -> str:
    """`//a//b/` as `/a/b/`: HDFS (Hadoop's Path) reads repeated slashes as one, so listings answer children under
    that spelling; a path kept with them would not be the prefix of its own children."""
    return re.sub("/{2,}", "/", hdfs_path)


def _parent(hdfs_path: str) -> str:
    """The parent folder of an absolute path (`/` is its own)."""
    return hdfs_path.rstrip("/").rpartition("/")[0] or "/"


def _reason(err: HdfsError) -> str:
    """A RemoteException's meaning in words; its message (first line, no Java class names) when unknown."""
    known = _REASONS.get(getattr(err, "exception", None) or "")
    if known is not None:
        return known
    message = str(err).splitlines()[0] if str(err) else "the namenode refused the call"
    return message.rstrip(".").replace("Exception", "error")
