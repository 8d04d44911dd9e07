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
    # Deletions are disjoint subtrees: a few in flight at once keep the file system busy while each call
    # crosses to the JVM and back (py4j serves every Python thread on a connection of its own). One deletion (a
    # daily run's oldest day) starts no threads.
    if len(plan.deletions) == 1:
        fs.delete(plan.deletions[0], recursive=True)
    elif plan.deletions:
        with ThreadPoolExecutor(max_workers=DELETE_THREADS) as pool:
            list(pool.map(lambda path: fs.delete(path, recursive=True), plan.deletions))
    folders = {path for path in plan.deletions if path not in instance_paths}
    return Applied(sizes, len(folders) + _folders_between(folders, plan) + remove_empty_parents(fs, plan))


def _folders_between(folders: set[str], plan: LocationPlan) -> int:
    """Directories between a deleted folder and the instances in it (the month and day folders of a deleted year),
    found by walking up from each instance: one pass, however many folders went."""
    between: set[str] = set()
    inside: dict[str, bool] = {}  # a directory: whether it is in (or is) a deleted folder
    for instance in plan.expired:
        above = []
        parent = instance.path.rsplit("/", 1)[0]
        while parent not in inside and parent not in folders and "/" in parent:
            above.append(parent)
            parent = parent.rsplit("/", 1)[0]
        found = parent in folders or inside.get(parent, False)
        inside.update(dict.fromkeys(above, found))
        if found:
            between.update(above)
    return len(between)


def _prepare(feed: Feed, cluster: Cluster, root: str | None) -> Deletion:
    return Deletion()


ACTION = RetentionAction(name="delete", prepare=_prepare)
