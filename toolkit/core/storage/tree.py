"""The files below a directory with their paths relative to it (`FileSystem.list_files`: one call for the
whole tree on the Hadoop file system), optionally skipping names (hidden files, staging folders) at any depth.

Symbolic links are never files of a tree: `files_below` leaves them out (nothing copies or reads a link's
target), and `walk_below` also names them, for callers that report them.

`data_files` are the files readers read: Hive's and Spark's (and Hadoop's FileInputFormat's) rule hides every
name starting with `_` or `.` (`_SUCCESS`, `_temporary`, `.crc` side files, staging folders)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from toolkit.core.storage.filesystem import FileStatus, FileSystem, StorageError, normalize_uri


@dataclass(frozen=True)
class TreeFile:
    relative_path: str
    status: FileStatus


@dataclass(frozen=True)
class Walked:
    """The files below a directory, and the URIs of the symbolic links met (never followed)."""

    files: list[TreeFile]
    links: list[str]


def files_below(fs: FileSystem, root: str, skip: Callable[[str], bool] | None = None) -> list[TreeFile]:
    """Every file below `root` none of whose names (its own or its folders' below `root`) `skip` rejects,
    sorted by relative path; [] when `root` does not exist; StorageError when it is a file."""
    return walk_below(fs, root, skip).files


def walk_below(fs: FileSystem, root: str, skip: Callable[[str], bool] | None = None) -> Walked:
    """`files_below`, and the symbolic links (sorted URIs) that `skip` does not reject."""
    prefix = normalize_uri(root).rstrip("/") + "/"
    found: list[TreeFile] = []
    links: list[str] = []
    for status in fs.list_files(root):
        path = normalize_uri(status.path)
        if not path.startswith(prefix):
            raise StorageError(f"The file system lists {path} below {root}, spelled otherwise: cannot tell its "
                               "relative path.")
        relative = path[len(prefix):]
        if skip is not None and any(skip(name) for name in relative.split("/")):
            continue
        if status.is_link:
            links.append(path)
        else:
            found.append(TreeFile(relative, status))
    return Walked(sorted(found, key=lambda item: item.relative_path), sorted(links))


def join(directory: str, relative_path: str) -> str:
    return normalize_uri(directory).rstrip("/") + "/" + relative_path


def hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def data_files(fs: FileSystem, root: str) -> list[TreeFile]:
    """The visible files below `root`, sorted by relative path; [] when `root` does not exist."""
    return files_below(fs, root, skip=hidden)


def remove_empty_folders(fs: FileSystem, folder: str) -> int:
    """Delete `folder` and the folders below it that hold nothing, deepest first, never recursively: a folder
    that still holds a file (one that arrived meanwhile, a link) stays with its parents. The count removed."""
    removed = 0
    for child in fs.list(folder):
        if child.is_dir and not child.is_link:
            removed += remove_empty_folders(fs, child.path)
    with contextlib.suppress(StorageError):  # not empty
        removed += fs.delete(folder, recursive=False)
    return removed
