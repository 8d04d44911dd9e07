"""The files below a directory with their paths relative to it, listed one batch per depth (one JVM round
trip per level on the Hadoop file system), optionally skipping names (hidden files, staging folders)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolkit.storage.filesystem import FileStatus, FileSystem, StorageError, normalize_uri


@dataclass(frozen=True)
class TreeFile:
    relative_path: str
    status: FileStatus


def files_below(fs: FileSystem, root: str, skip: Callable[[str], bool] | None = None) -> list[TreeFile]:
    """Every file below `root` whose name (and whose folders' names) `skip` does not reject, sorted by
    relative path; [] when `root` does not exist; StorageError when it is a file."""
    root = normalize_uri(root)
    status = fs.status(root)
    if status is None:
        return []
    if not status.is_dir:
        raise StorageError(f"{root} is a file where a directory belongs.")
    prefix = root.rstrip("/") + "/"
    found: list[TreeFile] = []
    frontier = [root]
    while frontier:
        following = []
        for children in fs.list_many(frontier).values():
            for child in children:
                if skip is not None and skip(child.name):
                    continue
                if child.is_dir:
                    following.append(child.path)
                    continue
                path = normalize_uri(child.path)
                if not path.startswith(prefix):
                    raise StorageError(f"The file system lists {path} below {root}, spelled otherwise: cannot tell "
                                       "its relative path.")
                found.append(TreeFile(path[len(prefix):], child))
        frontier = following
    return sorted(found, key=lambda item: item.relative_path)


def join(directory: str, relative_path: str) -> str:
    return normalize_uri(directory).rstrip("/") + "/" + relative_path
