"""The data files of a partition directory, as readers see them: every file below it whose name and whose
folders' names do not start with `_` or `.` (Hive's and Spark's rule for hidden files: `_SUCCESS`, `.crc`
side files, staging folders), with its path relative to the directory."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.storage.filesystem import FileStatus, FileSystem, StorageError, normalize_uri


@dataclass(frozen=True)
class DataFile:
    relative_path: str
    status: FileStatus


def hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def data_files(fs: FileSystem, root: str) -> list[DataFile]:
    """The visible files below `root`, sorted by relative path; [] when `root` does not exist. One listing
    batch per depth."""
    root = normalize_uri(root)
    status = fs.status(root)
    if status is None:
        return []
    if not status.is_dir:
        raise StorageError(f"{root} is a file where a partition directory belongs: check the partition's location.")
    prefix = root.rstrip("/") + "/"
    found: list[DataFile] = []
    frontier = [root]
    while frontier:
        following = []
        for children in fs.list_many(frontier).values():
            for child in children:
                if hidden(child.name):
                    continue
                if child.is_dir:
                    following.append(child.path)
                else:
                    path = normalize_uri(child.path)
                    if not path.startswith(prefix):
                        raise StorageError(f"The file system lists {path} below {root}, spelled otherwise: cannot tell "
                                           "its path in the partition.")
                    found.append(DataFile(path[len(prefix):], child))
        frontier = following
    return sorted(found, key=lambda item: item.relative_path)


def join(directory: str, relative_path: str) -> str:
    return normalize_uri(directory).rstrip("/") + "/" + relative_path
