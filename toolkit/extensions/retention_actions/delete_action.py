"""Retention's `delete` action: recursive deletes of the planned units, then the emptied parents, each with a
non-recursive delete (a directory that received data in the meantime is left alone). A table's expired partitions
are dropped by toolkit/actions/retention/tables.py.

Every deletion removes only expired instances, so a run killed at any moment leaves a tree that a rerun finishes:
the rerun's walk finds what is left and plans again.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.storage.filesystem import FileSystem
from toolkit.extensions.retention_actions.action import Applied, RetentionAction
from toolkit.extensions.retention_actions.location_plan import ExpiredInstance, LocationPlan, remove_empty_parents

DELETE_THREADS = 4


@dataclass(frozen=True)
class Deletion:
    action: str = "delete"

    def destination(self, path: str) -> str | None:
        return None

    def apply(self, fs: FileSystem, plan: LocationPlan) -> Applied:
        return evict(fs, plan)


def evict(fs: FileSystem, plan: LocationPlan) -> Applied:
    instance_paths = {instance.path for instance in plan.expired}
    inside = _instances_by_deletion(plan)

    def sized_then_deleted(path: str) -> dict[str, int]:
        """The bytes of the instances in the deletion `path`, measured as it goes (in one walk where the file
        system can: FileSystem.delete_sized)."""
        return fs.delete_sized(path, [instance.entry for instance in inside[path]])

    # Deletions are disjoint subtrees: a few in flight at once keep the file system busy while each call
    # crosses to the JVM and back (py4j serves every Python thread on a connection of its own), and each one's
    # sizing walk overlaps the others' deletions. One deletion (a daily run's oldest day) starts no threads.
    if len(plan.deletions) <= 1:
        measured = [sized_then_deleted(path) for path in plan.deletions]
    else:
        with ThreadPoolExecutor(max_workers=DELETE_THREADS) as pool:
            measured = list(pool.map(sized_then_deleted, plan.deletions))
    sizes = {path: size for part in measured for path, size in part.items()}
    folders = {path for path in plan.deletions if path not in instance_paths}
    return Applied(sizes, len(folders) + _folders_between(folders, plan) + remove_empty_parents(fs, plan))


def _instances_by_deletion(plan: LocationPlan) -> dict[str, list[ExpiredInstance]]:
    """Each deletion's expired instances: itself, or those below it (the planner deletes every expired instance
    as itself or inside a folder it deletes whole)."""
    inside: dict[str, list[ExpiredInstance]] = {path: [] for path in plan.deletions}
    for instance in plan.expired:
        deletion = next((path for path in _itself_and_above(instance.path) if path in inside), None)
        if deletion is None:
            raise ValueError(f"The retention plan deletes no folder that holds {instance.path}.")
        inside[deletion].append(instance)
    return inside


def _itself_and_above(path: str) -> Iterator[str]:
    while "/" in path:
        yield path
        path = path.rsplit("/", 1)[0]


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
