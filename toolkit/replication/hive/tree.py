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
    """The visible files below `root`, sorted by relative path; [] when `root` does not exist. The whole tree
    in one listing (`FileSystem.list_files`: one JVM call on Hadoop's file systems)."""
    root = normalize_uri(root)
    prefix = root.rstrip("/") + "/"
    try:
        listed = fs.list_files(root)
    except StorageError:
        status = fs.status(root)
        if status is not None and not status.is_dir:
            raise StorageError(f"{root} is a file where a partition directory belongs: check the partition's "
                               "location.") from None
        raise
    found: list[DataFile] = []
    for status in listed:
        path = normalize_uri(status.path)
        if not path.startswith(prefix):
            raise StorageError(f"The file system lists {path} below {root}, spelled otherwise: cannot tell its path "
                               "in the partition.")
        relative = path[len(prefix):]
        if not any(hidden(part) for part in relative.split("/")):
            found.append(DataFile(relative, status))
    return sorted(found, key=lambda item: item.relative_path)


def join(directory: str, relative_path: str) -> str:
    return normalize_uri(directory).rstrip("/") + "/" + relative_path
