"""The data files of a partition directory, as readers see them: every file below it whose name and whose
folders' names do not start with `_` or `.` (Hive's and Spark's rule for hidden files: `_SUCCESS`, `.crc`
side files, staging folders), with its path relative to the directory."""

from __future__ import annotations

from toolkit.storage.filesystem import FileSystem
from toolkit.storage.tree import TreeFile, files_below, join

__all__ = ["data_files", "hidden", "join"]


def hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def data_files(fs: FileSystem, root: str) -> list[TreeFile]:
    """The visible files below `root`, sorted by relative path; [] when `root` does not exist."""
    return files_below(fs, root, skip=hidden)
