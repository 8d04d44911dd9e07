"""What a retention action carries out: the expired instances of one templated location of a feed, the deletions
that remove them and the parent folders to tidy (planned by toolkit/planners/retention/file_plan.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.core.storage.filesystem import FileStatus, FileSystem, StorageError


@dataclass(frozen=True)
class ExpiredInstance:
    time: datetime
    path: str
    entry: FileStatus


@dataclass(frozen=True)
class LocationPlan:
    """The eviction of one location: the instances, the deletions that remove them, the parents to tidy."""

    kind: str
    template: str
    base: str
    expired: tuple[ExpiredInstance, ...]
    deletions: tuple[str, ...]
    parents: tuple[str, ...]  # deepest first: emptied directories to remove if still empty (never the base)
    links: tuple[str, ...] = ()  # symbolic links met on the walk: left in place, reported


def remove_empty_parents(fs: FileSystem, plan: LocationPlan) -> int:
    """The plan's parent folders, one by one, each only if empty; the count removed."""
    directories = 0
    for path in plan.parents:
        try:
            if fs.delete(path, recursive=False):
                directories += 1
        except StorageError:
            continue  # not empty: an instance kept, or something arrived; it stays
    return directories
