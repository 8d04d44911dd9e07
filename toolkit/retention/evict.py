"""Carry out a location plan: recursive deletes of the planned units, then the emptied parents, each
with a non-recursive delete (a directory that received data in the meantime is left alone).

Every deletion removes only expired instances, so a run killed at any moment leaves a tree that a
rerun finishes: the rerun's walk finds what is left and plans again. After `archive` moved a plan's
instances, `tidy_after_archive` removes only the folders left without a file.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from toolkit.retention.file_plan import LocationPlan
from toolkit.storage.filesystem import FileSystem, StorageError
from toolkit.storage.tree import remove_empty_folders

DELETE_THREADS = 4


@dataclass(frozen=True)
class Evicted:
    """What a plan's execution removed: instance paths with their bytes, and directories besides instances."""

    sizes: dict[str, int]
    directories_removed: int


def evict(fs: FileSystem, plan: LocationPlan) -> Evicted:
    sizes = fs.total_sizes([instance.entry for instance in plan.expired])
    instance_paths = {instance.path for instance in plan.expired}
    directories = 0
    # Deletions are disjoint subtrees: a few in flight at once keep the file system busy while each call
    # crosses to the JVM and back (py4j serves every Python thread on a connection of its own).
    with ThreadPoolExecutor(max_workers=DELETE_THREADS) as pool:
        list(pool.map(lambda path: fs.delete(path, recursive=True), plan.deletions))
    for path in plan.deletions:
        if path not in instance_paths:
            directories += 1 + _walked_below(plan, path)
    return Evicted(sizes, directories + _remove_empty_parents(fs, plan))


def _walked_below(plan: LocationPlan, folder: str) -> int:
    """Directories between a deleted folder and the instances in it (month and day folders of a year)."""
    prefix = folder.rstrip("/") + "/"
    inner = {instance.path[len(prefix):].rsplit("/", 1)[0] for instance in plan.expired
             if instance.path.startswith(prefix) and "/" in instance.path[len(prefix):]}
    folders = {"/".join(parts.split("/")[: i + 1]) for parts in inner for i in range(parts.count("/") + 1)}
    return len(folders)


def tidy_after_archive(fs: FileSystem, plan: LocationPlan) -> int:
    """Remove the folders that archiving the plan's instances emptied, never recursively (a folder holding a
    kept instance, or a file that arrived, stays); the count removed."""
    instance_paths = {instance.path for instance in plan.expired}
    directories = sum(remove_empty_folders(fs, path) for path in plan.deletions
                      if path not in instance_paths and fs.status(path) is not None)
    return directories + _remove_empty_parents(fs, plan)


def _remove_empty_parents(fs: FileSystem, plan: LocationPlan) -> int:
    """The plan's parent folders, one by one, each only if empty; the count removed."""
    directories = 0
    for path in plan.parents:
        try:
            if fs.delete(path, recursive=False):
                directories += 1
        except StorageError:
            continue  # not empty: an instance kept, or something arrived; it stays
    return directories
