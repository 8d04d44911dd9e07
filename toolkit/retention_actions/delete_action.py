"""Retention's `delete` action: recursive deletes of the planned units, then the emptied parents, each with a
non-recursive delete (a directory that received data in the meantime is left alone). A table's expired partitions
are dropped by toolkit/retention/tables.py.

Every deletion removes only expired instances, so a run killed at any moment leaves a tree that a rerun finishes:
the rerun's walk finds what is left and plans again.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from toolkit.entities.model import Cluster, Feed
from toolkit.retention_actions.action import Applied, RetentionAction
from toolkit.retention_actions.location_plan import LocationPlan, remove_empty_parents
from toolkit.storage.filesystem import FileSystem

DELETE_THREADS = 4


@dataclass(frozen=True)
class Deletion:
    action: str = "delete"

    def destination(self, path: str) -> str | None:
        return None

    def apply(self, fs: FileSystem, plan: LocationPlan) -> Applied:
        return evict(fs, plan)


def evict(fs: FileSystem, plan: LocationPlan) -> Applied:
    sizes = fs.total_sizes([instance.entry for instance in plan.expired])
    instance_paths = {instance.path for instance in plan.expired}
    directories = 0
    # Deletions are disjoint subtrees: a few in flight at once keep the file system busy while each call
    # crosses to the JVM and back (py4j serves every Python thread on a connection of its own). One deletion (a
    # daily run's oldest day) starts no threads.
    if len(plan.deletions) == 1:
        fs.delete(plan.deletions[0], recursive=True)
    elif plan.deletions:
        with ThreadPoolExecutor(max_workers=DELETE_THREADS) as pool:
            list(pool.map(lambda path: fs.delete(path, recursive=True), plan.deletions))
    for path in plan.deletions:
        if path not in instance_paths:
            directories += 1 + _walked_below(plan, path)
    return Applied(sizes, directories + remove_empty_parents(fs, plan))


def _walked_below(plan: LocationPlan, folder: str) -> int:
    """Directories between a deleted folder and the instances in it (month and day folders of a year)."""
    prefix = folder.rstrip("/") + "/"
    inner = {instance.path[len(prefix):].rsplit("/", 1)[0] for instance in plan.expired
             if instance.path.startswith(prefix) and "/" in instance.path[len(prefix):]}
    folders = {"/".join(parts.split("/")[: i + 1]) for parts in inner for i in range(parts.count("/") + 1)}
    return len(folders)


def _prepare(feed: Feed, cluster: Cluster, root: str | None) -> Deletion:
    return Deletion()


ACTION = RetentionAction(name="delete", prepare=_prepare)
