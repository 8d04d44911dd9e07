"""A loopback WebHDFS endpoint backed by a local folder: the stand-in for an HDFS namenode, which cannot run here.

It follows Hadoop's published WebHDFS REST API (hadoop-project-dist/hadoop-hdfs/WebHDFS.html) for exactly the
calls the toolkit makes (toolkit/core/storage/webhdfs.py), with HDFS's semantics where the toolkit relies on them:
- GET  GETFILESTATUS: `{"FileStatus": {...}}` (type FILE, DIRECTORY or SYMLINK; modificationTime in ms).
- GET  LISTSTATUS: `{"FileStatuses": {"FileStatus": [...]}}`, each with its `pathSuffix`; a file lists itself
  with an empty `pathSuffix`.
- GET  OPEN: 307 to the datanode, which answers the bytes (`offset`, `length`).
- PUT  CREATE: the namenode answers 307 with a datanode URL (no existence check there, as Hadoop's); the datanode
  creates the file (parents too) and answers 201: with `overwrite=false` an existing path is refused with
  FileAlreadyExistsException, in one step (O_EXCL) so that of two racing creators exactly one wins.
- PUT  MKDIRS: `{"boolean": true}`; a file in the way: FileAlreadyExistsException / ParentNotDirectoryException.
- PUT  RENAME: without `renameoptions`, Hadoop's old rename (`{"boolean": ...}`, into an existing folder); with
  `renameoptions=NONE` or `OVERWRITE`, Hadoop's rename2 (WebHdfsFileSystem.rename(src, dst, options)): an
  existing target is refused (FileAlreadyExistsException) or replaced when it is a file or an empty folder of
  the same kind; a missing target parent is FileNotFoundException. Renames are serialised, as in a namenode.
- PUT  SETTIMES: `modificationtime` (ms) set on the path; empty 200.
- DELETE DELETE: `{"boolean": ...}`; a non-empty folder without `recursive=true`: PathIsNotEmptyDirectoryException.
Boolean parameters are read as Hadoop does (`true` in any case). Errors are Hadoop's JSON
`{"RemoteException": {"exception", "javaClassName", "message"}}` with its status codes (404 FileNotFoundException,
403 other IOExceptions and AccessControlException, 400 bad arguments). Every call is recorded (`calls`: method,
op, path, user.name) so tests can assert what was sent. A path outside `confine` (when given) is refused with
AccessControlException to any call that changes it: the contract tests serve `/` confined to their temporary
folders. A path through a symbolic link on the local disk (a link as a parent, not as the last name) is refused to
every call with UnresolvedPathException, never followed: HDFS resolves no link on the way (its symlinks are off in
practice; where on, the namenode answers UnresolvedPathException and only a client resolves it). A name longer than
255 bytes is refused to a call that changes the path with PathComponentTooLongException, as the namenode's default
`dfs.namenode.fs-limits.max-component-length` does.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

PREFIX = "/webhdfs/v1"
NAME_BYTES = 255  # dfs.namenode.fs-limits.max-component-length's default
_STATUS = {"FileNotFoundException": 404, "IllegalArgumentException": 400, "UnsupportedOperationException": 400,
           "SecurityException": 401}
_PACKAGES = {"FileNotFoundException": "java.io", "IllegalArgumentException": "java.lang",
             "UnsupportedOperationException": "java.lang", "AccessControlException": "org.apache.hadoop.security",
             "IOException": "java.io"}


class RemoteError(Exception):
    """A RemoteException to answer: Hadoop's exception name and message."""

    def __init__(self, exception: str, message: str) -> None:
        super().__init__(message)
        self.exception = exception


@dataclass(frozen=True)
class Call:
    method: str
    op: str
    path: str
    user: str | None


@dataclass
class LoopbackWebHdfs:
    """A namenode and a datanode on 127.0.0.1 serving `folder` as HDFS's `/`; `url` is the namenode's."""

    folder: Path
    confine: Path | None = None
    calls: list[Call] = field(default_factory=list)
    _servers: list[ThreadingHTTPServer] = field(default_factory=list)
    _namespace: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._servers[0].server_address[1]}"

    @property
    def datanode_url(self) -> str:
        return f"http://127.0.0.1:{self._servers[1].server_address[1]}"

    def start(self) -> LoopbackWebHdfs:
        for role in ("namenode", "datanode"):
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, role))
            server.daemon_threads = True
            # A short poll: `stop` waits for it (the default half second, twice per endpoint, added up over tests).
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                             name=f"webhdfs-{role}").start()
            self._servers.append(server)
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> LoopbackWebHdfs:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def local(self, hdfs_path: str, write: bool = False) -> Path:
        """The local file behind an absolute HDFS path (to change it: `write`, which `confine` limits)."""
        if not hdfs_path.startswith("/") or any(part in (".", "..") for part in hdfs_path.split("/")):
            raise RemoteError("IllegalArgumentException", f"Invalid path name {hdfs_path}")
        local = Path(os.path.normpath(os.path.join(self.folder, hdfs_path.lstrip("/"))))
        if write and self.confine is not None and local != self.confine and self.confine not in local.parents:
            raise RemoteError("AccessControlException", f"Permission denied: {hdfs_path} is outside the served tree")
        names = [name for name in hdfs_path.split("/") if name]
        if write and any(len(name.encode()) > NAME_BYTES for name in names):
            raise RemoteError("PathComponentTooLongException", "The maximum path component name limit of a name in "
                                                               f"{hdfs_path} is exceeded: limit={NAME_BYTES}")
        for depth in range(1, len(names)):  # HDFS resolves no link on the way: the namenode refuses the path
            if (self.folder / "/".join(names[:depth])).is_symlink():
                raise RemoteError("UnresolvedPathException", f"Unresolved path {hdfs_path}: "
                                                             f"/{'/'.join(names[:depth])} is a symbolic link")
        return local


def _file_status(local: Path, suffix: str) -> dict[str, object]:
    info = os.lstat(local)
    kind = "SYMLINK" if stat.S_ISLNK(info.st_mode) else "DIRECTORY" if stat.S_ISDIR(info.st_mode) else "FILE"
    status: dict[str, object] = {
        "accessTime": info.st_atime_ns // 1_000_000, "blockSize": 134217728 if kind == "FILE" else 0,
        "childrenNum": len(os.listdir(local)) if kind == "DIRECTORY" else 0, "fileId": info.st_ino,
        "group": "supergroup", "length": info.st_size if kind == "FILE" else 0,
        "modificationTime": info.st_mtime_ns // 1_000_000, "owner": "hdfs", "pathSuffix": suffix,
        "permission": f"{stat.S_IMODE(info.st_mode):o}", "replication": 3 if kind == "FILE" else 0,
        "storagePolicy": 0, "type": kind}
    if kind == "SYMLINK":
        status["symlink"] = os.readlink(local)
    return status


def _handler(served: LoopbackWebHdfs, role: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The headers and the body go out in two writes; with Nagle's algorithm on, the second waits for the
        # client's delayed ACK (about 40 ms a call here): a cost of how this stand-in writes, not of the calls.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass  # quiet: the calls are recorded instead

        def do_GET(self) -> None:  # noqa: N802 - http.server's names
            self._serve("GET")

        def do_PUT(self) -> None:  # noqa: N802
            self._serve("PUT")

        def do_DELETE(self) -> None:  # noqa: N802
            self._serve("DELETE")

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            params = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            op = params.get("op", "").upper()
            if not parts.path.startswith(PREFIX):
                self._json(404, {"RemoteException": {"exception": "FileNotFoundException", "message": parts.path}})
                return
            hdfs_path = unquote(parts.path[len(PREFIX):]) or "/"
            served.calls.append(Call(method, op, hdfs_path, params.get("user.name")))
            try:
                getattr(self, f"_{role}")(method, op, hdfs_path, params, body)
            except RemoteError as err:
                self._error(err.exception, str(err))

        # -------------------------------------------------------------------------------------- namenode
        def _namenode(self, method: str, op: str, hdfs_path: str, params: dict[str, str], body: bytes) -> None:
            local = served.local(hdfs_path, write=method != "GET")
            if (method, op) in (("GET", "OPEN"), ("PUT", "CREATE")):
                query = "&".join(f"{quote(k)}={quote(v)}" for k, v in params.items())
                self._redirect(f"{served.datanode_url}{PREFIX}{quote(hdfs_path)}?{query}")
            elif (method, op) == ("GET", "GETFILESTATUS"):
                self._json(200, {"FileStatus": _file_status(self._existing(local, hdfs_path), "")})
            elif (method, op) == ("GET", "LISTSTATUS"):
                self._json(200, {"FileStatuses": {"FileStatus": _listing(self._existing(local, hdfs_path))}})
            elif (method, op) == ("PUT", "MKDIRS"):
                with served._namespace:
                    _refuse_file_above(served, hdfs_path)
                    if local.exists() and not local.is_dir():
                        raise RemoteError("FileAlreadyExistsException", f"Path is not a directory: {hdfs_path}")
                    local.mkdir(parents=True, exist_ok=True)
                self._json(200, {"boolean": True})
            elif (method, op) == ("PUT", "RENAME"):
                self._rename(hdfs_path, local, params)
            elif (method, op) == ("PUT", "SETTIMES"):
                self._existing(local, hdfs_path)
                if "modificationtime" in params:
                    mtime_ns = int(params["modificationtime"]) * 1_000_000
                    os.utime(local, ns=(os.lstat(local).st_atime_ns, mtime_ns), follow_symlinks=False)
                self._empty(200)
            elif (method, op) == ("DELETE", "DELETE"):
                recursive = params.get("recursive", "").lower() == "true"
                self._json(200, {"boolean": self._delete(local, hdfs_path, recursive)})
            else:
                raise RemoteError("IllegalArgumentException", f"Invalid value for webhdfs parameter \"op\": {op} "
                                                              f"is not served by this loopback endpoint")

        def _existing(self, local: Path, hdfs_path: str) -> Path:
            if not os.path.lexists(local):
                raise RemoteError("FileNotFoundException", f"File does not exist: {hdfs_path}")
            return local

        def _rename(self, hdfs_path: str, local: Path, params: dict[str, str]) -> None:
            destination = params.get("destination", "")
            target = served.local(destination, write=True)
            options = {option.strip().upper() for option in params.get("renameoptions", "").split(",") if option}
            with served._namespace:
                if not options:  # Hadoop's old rename: false rather than an error, and into an existing folder
                    if target.is_dir() and not target.is_symlink():
                        target = target / local.name
                    ok = os.path.lexists(local) and not os.path.lexists(target) and target.parent.is_dir()
                    if ok:
                        os.rename(local, target)
                    self._json(200, {"boolean": bool(ok)})
                    return
                self._existing(local, hdfs_path)
                if not target.parent.is_dir():
                    raise RemoteError("FileNotFoundException", f"rename destination parent {destination} not found.")
                if os.path.lexists(target):
                    if "OVERWRITE" not in options:
                        raise RemoteError("FileAlreadyExistsException",
                                          f"rename destination {destination} already exists.")
                    if target.is_dir() != local.is_dir():
                        raise RemoteError("IOException", f"Source {hdfs_path} and destination {destination} must "
                                                         "both be directories")
                    if target.is_dir() and any(target.iterdir()):
                        raise RemoteError("IOException", f"rename destination directory is not empty: {destination}")
                os.replace(local, target)
            self._empty(200)

        def _delete(self, local: Path, hdfs_path: str, recursive: bool) -> bool:
            with served._namespace:
                if not os.path.lexists(local):
                    return False
                if local.is_dir() and not local.is_symlink():
                    if any(local.iterdir()) and not recursive:
                        raise RemoteError("PathIsNotEmptyDirectoryException",
                                          f"`{hdfs_path} is non empty': Directory is not empty")
                    shutil.rmtree(local)
                else:
                    local.unlink()
                return True

        # -------------------------------------------------------------------------------------- datanode
        def _datanode(self, method: str, op: str, hdfs_path: str, params: dict[str, str], body: bytes) -> None:
            local = served.local(hdfs_path, write=method != "GET")
            if (method, op) == ("GET", "OPEN"):
                existing = self._existing(local, hdfs_path)
                if existing.is_dir():
                    raise RemoteError("FileNotFoundException", f"Path is not a file: {hdfs_path}")
                data = existing.read_bytes()[int(params.get("offset") or 0):]
                if params.get("length"):
                    data = data[:int(params["length"])]
                self._bytes(200, data)
            elif (method, op) == ("PUT", "CREATE"):
                self._create(local, hdfs_path, params.get("overwrite", "").lower() == "true", body)
                self.send_response(201)
                self.send_header("Location", f"hdfs://127.0.0.1{quote(hdfs_path)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                raise RemoteError("IllegalArgumentException", f"{op} is not a datanode operation")

        def _create(self, local: Path, hdfs_path: str, overwrite: bool, body: bytes) -> None:
            with served._namespace:
                _refuse_file_above(served, hdfs_path)
                if local.is_dir():
                    raise RemoteError("FileAlreadyExistsException", f"{hdfs_path} already exists as a directory")
                local.parent.mkdir(parents=True, exist_ok=True)
                # O_NOFOLLOW: a link at the name is never written through (HDFS resolves no link itself)
                flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_TRUNC if overwrite else os.O_EXCL)
                try:
                    handle = os.open(local, flags, 0o644)
                except FileExistsError:
                    raise RemoteError("FileAlreadyExistsException", f"{hdfs_path} for client 127.0.0.1 already "
                                                                    "exists") from None
                except OSError as err:
                    if err.errno != errno.ELOOP:
                        raise
                    raise RemoteError("UnresolvedPathException", f"Unresolved path {hdfs_path}: it is a symbolic "
                                                                 "link") from None
            with os.fdopen(handle, "wb") as stream:
                stream.write(body)

        # ------------------------------------------------------------------------------------- answers
        def _redirect(self, location: str) -> None:
            self.send_response(307)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _json(self, code: int, document: object) -> None:
            data = json.dumps(document).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _bytes(self, code: int, data: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _empty(self, code: int) -> None:
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _error(self, exception: str, message: str) -> None:
            package = _PACKAGES.get(exception, "org.apache.hadoop.fs" if "Path" in exception or "File" in exception
                                    else "org.apache.hadoop.ipc")
            self._json(_STATUS.get(exception, 403), {"RemoteException": {
                "exception": exception, "javaClassName": f"{package}.{exception}", "message": message}})

    return Handler


def _listing(local: Path) -> list[dict[str, object]]:
    if not local.is_dir() or local.is_symlink():
        return [_file_status(local, "")]
    found = []
    for name in sorted(os.listdir(local)):
        with contextlib.suppress(FileNotFoundError):  # deleted since listed
            found.append(_file_status(local / name, name))
    return found


def _refuse_file_above(served: LoopbackWebHdfs, hdfs_path: str) -> None:
    """HDFS's ParentNotDirectoryException when a parent of `hdfs_path` is a file."""
    names = [name for name in hdfs_path.split("/") if name]
    for depth in range(1, len(names)):
        parent = "/" + "/".join(names[:depth])
        local = served.local(parent)
        if not local.exists():
            return
        if not local.is_dir():
            raise RemoteError("ParentNotDirectoryException", f"{parent} (is not a directory)")
