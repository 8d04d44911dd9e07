"""A pure-Python file system for `file://` URIs: the CLI and the tests use it where no Spark session
exists. It behaves as Hadoop's local file system does (the contract tests run both)."""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import errno
import itertools
import os
import shutil
import stat
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from toolkit.core.storage.filesystem import (
    CopyResult,
    CopyTask,
    FileStatus,
    FileSystem,
    StorageError,
    each_listed,
    hidden_sibling,
    normalize_uri,
    plain_uri,
)
from toolkit.core.storage.globs import expand_braces, glob_paths
from toolkit.core.storage.local_trees import remove_tree
from toolkit.forked_map import forked_map

SIZED_APART = 2_000  # trees: from this many, forked workers share the sizing (below, a fork costs more than it saves)


def to_local_path(uri: str) -> str:
    """`file:///a/b` (or Hadoop's `file:/a/b`) -> `/a/b`; any other scheme, and `.` or `..` segments, are refused."""
    if uri.startswith("file:///") and "/." not in uri and not uri.endswith("/"):
        return uri[len("file://"):]  # already in the one spelling (every path a listing made): nothing to refuse
    uri = plain_uri(uri)
    if not uri.startswith("file:///"):
        raise StorageError(f"{uri} is not a local path: the local file system takes file:/// URIs only.")
    return "/" + uri[len("file:///"):]


def to_uri(path: str) -> str:
    return normalize_uri("file://" + os.path.abspath(path))


def _listed(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


_T = TypeVar("_T")
_temporary_names = itertools.count()


def _in_folder(local: str, create: Callable[[str], _T]) -> _T:
    """`create(local)`, its folders made first only when it finds them missing: a ledger writes thousands of files
    into folders that exist, and a `makedirs` before each would cost a failing `mkdir` call apiece."""
    try:
        return create(local)
    except FileNotFoundError:
        try:
            os.makedirs(os.path.dirname(local), exist_ok=True)
        except FileExistsError:  # a file (or a dangling link) where a folder belongs, as the create found it
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), os.path.dirname(local)) from None
        return create(local)


def _temporary_file(local: str) -> tuple[int, str]:
    """A new file beside `local` (`.NAME.PID.N.tmp`, a long NAME cut as `hidden_sibling` does; created exclusively,
    so never another's) and its path."""
    while True:
        temporary = os.path.join(os.path.dirname(local), hidden_sibling(
            os.path.basename(local), f".{os.getpid()}.{next(_temporary_names)}.tmp"))
        try:
            # 0666 less the umask, as every other write of a file (the mode it keeps once renamed into place)
            return os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o666), temporary
        except FileExistsError:
            continue  # left by a killed process of the same pid: take the next number


def _tree_bytes(top: str) -> int:
    """The bytes of the files under the folder `top`, links neither followed nor counted; what goes away meanwhile
    (or cannot be read) counts nothing, as a listing of it would find nothing."""
    total, folders = 0, [top]
    while folders:
        try:
            with os.scandir(folders.pop()) as listing:
                for item in listing:
                    if item.is_dir(follow_symlinks=False):
                        folders.append(item.path)
                    elif not item.is_symlink():
                        try:
                            total += item.stat(follow_symlinks=False).st_size
                        except OSError:
                            continue
        except OSError:
            continue
    return total


def _from_stat(uri: str, info: os.stat_result) -> FileStatus:
    """The listing record of what `lstat` found at `uri`: a link as itself."""
    # st_mtime_ns: a float of seconds can round up to the next millisecond where Java's File does not
    mtime = info.st_mtime_ns // 1_000_000
    if stat.S_ISLNK(info.st_mode):
        return FileStatus(uri, 0, mtime, False, is_link=True)
    is_dir = stat.S_ISDIR(info.st_mode)
    return FileStatus(uri, 0 if is_dir else info.st_size, mtime, is_dir)


def _path_of(entry: FileStatus) -> str:
    return entry.path


class LocalFileSystem(FileSystem):
    """`file://` paths through the operating system; a symbolic link is stat'ed as itself, never followed."""

    shared_with_forks = True

    def _status(self, local: str) -> FileStatus:
        return _from_stat(to_uri(local), os.lstat(local))

    def exists(self, path: str) -> bool:
        return os.path.lexists(to_local_path(path))

    def status(self, path: str) -> FileStatus | None:
        """None where nothing is, a file on the way included (as Hadoop's getFileStatus finds no file there)."""
        try:
            return self._status(to_local_path(path))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise StorageError(f"Cannot read the status of {normalize_uri(path)}: {err.strerror}.") from None

    def list(self, path: str) -> list[FileStatus]:
        return self._listed(path, timed=True)

    def list_kinds_many(self, paths: Sequence[str]) -> dict[str, builtins.list[FileStatus]]:
        """As the base class's, a status read for files only (their lengths): retention's walk lists thousands of
        folders of instance folders, and a status call for each costs it a third of its time."""
        return each_listed(paths, lambda path: self._listed(path, timed=False))

    def _listed(self, path: str, timed: bool) -> builtins.list[FileStatus]:
        """The folder's entries by path; without `timed`, a directory's or a link's from the listing alone (its
        modification time 0)."""
        local = to_local_path(path)
        if os.path.islink(local):
            raise StorageError(f"Cannot list {normalize_uri(path)}: it is a symbolic link, which the toolkit never "
                               "follows.")
        folder = to_uri(local)
        prefix = folder if folder.endswith("/") else folder + "/"
        found = []
        try:
            with os.scandir(local) as entries:
                for entry in entries:
                    uri = prefix + entry.name
                    try:
                        link = entry.is_symlink()
                        if timed or not (link or entry.is_dir(follow_symlinks=False)):
                            found.append(_from_stat(uri, entry.stat(follow_symlinks=False)))
                        else:
                            found.append(FileStatus(uri, 0, 0, not link, is_link=link))
                    except FileNotFoundError:
                        continue  # deleted since the folder was read: a listing is a snapshot, not a promise
        except OSError as err:
            raise StorageError(f"Cannot list {normalize_uri(path)}: {err.strerror}.") from None
        found.sort(key=_path_of)  # by path, as FileStatus orders (the paths of one listing differ)
        return found

    def total_sizes(self, entries: Sequence[FileStatus]) -> dict[str, int]:
        """As the base class's, in one scandir walk per tree with no status records built (retention sizes every
        instance it evicts: the walk costs as much as the deletion), thousands of trees shared with forked workers."""
        folders = [entry.path for entry in entries if entry.is_dir]
        sizes = dict(zip(folders, forked_map(_tree_bytes, [to_local_path(path) for path in folders], SIZED_APART),
                         strict=True))
        return {entry.path: sizes[entry.path] if entry.is_dir else entry.length for entry in entries}

    def glob(self, pattern: str) -> builtins.list[FileStatus]:
        local = to_local_path(pattern)
        found = {match for expanded in expand_braces(local)
                 for match in glob_paths(expanded, os.path.lexists, _listed)}
        return sorted(self._status(match) for match in found)

    def mkdirs(self, path: str) -> None:
        try:
            os.makedirs(to_local_path(path), exist_ok=True)
        except OSError as err:
            raise StorageError(f"Cannot create the directory {normalize_uri(path)}: {err.strerror}.") from None

    def write_atomically(self, path: str, data: bytes) -> None:
        local = to_local_path(path)
        try:
            handle, temporary = _in_folder(local, _temporary_file)
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                os.replace(temporary, local)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as err:
            raise StorageError(f"Cannot write {normalize_uri(path)}: {err.strerror}.") from None

    def create_exclusive(self, path: str, data: bytes) -> bool:
        local = to_local_path(path)
        try:
            handle = _in_folder(local, lambda target: os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            return False
        except OSError as err:  # a file where a parent belongs (NotADirectoryError) is an error, not "the lock exists"
            raise StorageError(f"Cannot create {normalize_uri(path)}: {err.strerror}.") from None
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        return True

    def read(self, path: str) -> bytes:
        try:
            with open(to_local_path(path), "rb") as stream:  # no Path made: a metrics call reads a file a process
                return stream.read()
        except OSError as err:
            raise StorageError(f"Cannot read {normalize_uri(path)}: {err.strerror}.") from None

    def read_start(self, path: str, size: int) -> bytes | None:
        try:
            with open(to_local_path(path), "rb") as stream:
                return stream.read(size)
        except OSError as err:
            if not self.exists(path):
                return None
            raise StorageError(f"Cannot read {normalize_uri(path)}: {err.strerror}.") from None

    def rename(self, source: str, target: str) -> None:
        local_source, local_target = to_local_path(source), to_local_path(target)
        try:
            os.makedirs(os.path.dirname(local_target), exist_ok=True)
            rename_no_replace(local_source, local_target)
        except OSError as err:
            reason = "the target exists" if isinstance(err, FileExistsError) else err.strerror
            raise StorageError(f"Cannot rename {normalize_uri(source)} to {normalize_uri(target)}: {reason}.") \
                from None

    def _delete(self, path: str, *, recursive: bool, measured: dict[str, int] | None = None) -> bool:
        """`remove_tree` removes the links in a tree without following them (and adds up the `measured` folders'
        bytes as it goes)."""
        local = to_local_path(path)
        try:
            if os.path.isdir(local) and not os.path.islink(local):
                if recursive:
                    remove_tree(local, measured)
                else:
                    os.rmdir(local)
            else:
                os.remove(local)
        except FileNotFoundError:
            return False
        except OSError as err:
            if err.errno == errno.ENOTEMPTY:
                raise StorageError(f"Cannot delete {normalize_uri(path)}: the directory is not empty.") from None
            raise StorageError(f"Cannot delete {normalize_uri(path)}: {err.strerror}.") from None
        return True

    def delete_sized(self, path: str, entries: Sequence[FileStatus]) -> dict[str, int]:
        """In one walk: each folder's files are measured by the walk that removes them (local_trees.py), where a
        sizing walk first opened and read every folder a second time; a file's size is its listed length."""
        spelled = self._deletable(path)
        measured = {os.path.normpath(to_local_path(entry.path)): 0 for entry in entries if entry.is_dir}
        self._delete(spelled, recursive=True, measured=measured)
        return {entry.path: measured[os.path.normpath(to_local_path(entry.path))] if entry.is_dir else entry.length
                for entry in entries}

    def copy(self, source: str, target: str) -> None:
        local_source, local_target = to_local_path(source), to_local_path(target)
        if os.path.lexists(local_target):
            raise StorageError(f"Cannot copy {normalize_uri(source)} to {normalize_uri(target)}: the target exists.")
        self.refuse_links(source, target)
        try:
            os.makedirs(os.path.dirname(local_target), exist_ok=True)
            if os.path.isdir(local_source):
                shutil.copytree(local_source, local_target)
            else:
                shutil.copy2(local_source, local_target)
        except OSError as err:
            raise StorageError(f"Cannot copy {normalize_uri(source)} to {normalize_uri(target)}: {err.strerror}.") \
                from None

    def copy_files(self, tasks: Sequence[CopyTask], threads: int = 4,
                   preserve_permission: bool = True) -> builtins.list[CopyResult]:
        """`shutil.copyfile` (the kernel's copy_file_range/sendfile on Linux) from a thread pool."""
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            return list(pool.map(lambda task: _copy_one(task, preserve_permission), tasks))

    def checksum(self, path: str) -> str | None:
        """None: like Hadoop's local file system, it keeps no file checksums to compare cheaply."""
        if not os.path.isfile(to_local_path(path)):
            raise StorageError(f"Cannot checksum {normalize_uri(path)}: it is not a file.")
        return None


_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_LIBC = ctypes.CDLL(None, use_errno=True)
_RENAMEAT2 = getattr(_LIBC, "renameat2", None)  # glibc 2.28 and later


def rename_no_replace(source: str, target: str) -> None:
    """Rename `source` to `target`, FileExistsError when `target` exists, in one step that cannot race.

    `os.rename` replaces a file, and a directory onto an empty one (rename(2) does), so checking first and
    renaming then lets a concurrent writer's target be replaced. Linux's `renameat2(.., RENAME_NOREPLACE)`
    refuses an existing target in the kernel. Where it is missing (another libc, a file system without the
    flag: ENOSYS, EINVAL), the target is claimed first by a call that fails when it exists: `link(2)` for a
    file (then the source name is removed), `mkdir(2)` for a directory (then rename(2) replaces that empty
    directory of ours; a racer that filled it meanwhile makes it fail with ENOTEMPTY, never replaces)."""
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL):
            raise OSError(code, os.strerror(code), source, None, target)
    if os.path.isdir(source) and not os.path.islink(source):
        os.mkdir(target)
        try:
            os.rename(source, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.rmdir(target)  # ours, still empty: nothing of anyone's is lost
            raise
    else:
        os.link(source, target, follow_symlinks=False)
        os.unlink(source)


def _copy_one(task: CopyTask, preserve_permission: bool) -> CopyResult:
    try:
        source, target = to_local_path(task.source), to_local_path(task.target)
        if os.path.islink(source):
            return CopyResult(task, error="the source is a symbolic link: it is never copied as its target.")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
        copied = os.stat(target).st_size
        if copied != task.length:
            os.remove(target)
            return CopyResult(task, copied, error=f"{copied} bytes copied where the listing said {task.length}: "
                                                  "the source changed during the run; run again.")
        if preserve_permission:
            shutil.copymode(source, target)
        os.utime(target, ns=(task.modification_time * 1_000_000,) * 2)
        return CopyResult(task, copied)
    except (OSError, StorageError) as err:
        return CopyResult(task, error=f"{type(err).__name__}: {getattr(err, 'strerror', None) or err}")
