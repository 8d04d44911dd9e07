"""Other feeds' instances in this feed's tree. Two feeds of a repo may share folders (RP009 reports it, but the
linter may not have run): the evictor never deletes a path that is, holds, or lies inside an instance of another
feed on the cluster. Such an expired instance is kept and reported; the others are evicted.

Only the other feeds whose templates overlap this location's are looked for (`templates_overlap`), so a repo
without shared folders costs nothing; with one, each planned deletion's tree is listed down to the depth of the
other feed's instances, one batched listing per level.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from toolkit.core.el.templates import PathTemplate, path_segments, templates_overlap
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.filesystem import FileSystem
from toolkit.extensions.retention_actions.location_plan import LocationPlan


@dataclass(frozen=True)
class Neighbour:
    """A location of another feed on the cluster whose instances can share folders with this location's."""

    feed: str
    kind: str
    template: PathTemplate
    zone: ZoneInfo

    @property
    def depth(self) -> int:
        return len(path_segments(self.template.text))


@dataclass(frozen=True)
class Refusal:
    """An expired instance kept because deleting it would delete another feed's instance at `other_path`."""

    time: datetime
    path: str
    feed: str
    other_path: str


def neighbours(repo: ConfigRepo, feed: str, cluster: str, template: PathTemplate) -> list[Neighbour]:
    """The dated locations of the repo's other feeds on `cluster` (overrides applied) that overlap `template`. Only
    templates whose static folders nest can overlap (every instance lies under its template's static folder): they
    are found in an index of the cluster's locations by folder, built once per repo and cluster, so that a call for
    a cluster's hundreds of feeds does not compare each feed with every other."""
    return [Neighbour(other.feed, other.kind, other.template, other.zone)
            for other in _locations(repo, cluster).nesting(_folder(template.static_prefix))
            if other.feed != feed and templates_overlap(template, other.template)]


@dataclass(frozen=True)
class _Location:
    """A dated location of a file feed on the cluster, and its static folder ending in '/'."""

    feed: str
    kind: str
    template: PathTemplate
    zone: ZoneInfo
    folder: str


class _Locations:
    """The dated locations of a repo's file feeds on one cluster, by static folder: those at a folder or above it are
    looked up folder by folder, those below it in the sorted folders."""

    def __init__(self, locations: list[_Location]) -> None:
        self._sorted = sorted(locations, key=lambda location: location.folder)
        self._folders = [location.folder for location in self._sorted]
        self._at: dict[str, list[_Location]] = {}
        for location in self._sorted:
            self._at.setdefault(location.folder, []).append(location)

    def nesting(self, folder: str) -> list[_Location]:
        """The locations whose folder is `folder`, above it, or inside it."""
        above = [location for depth in range(1, folder.count("/"))
                 for location in self._at.get(folder[:_nth_slash(folder, depth) + 1], [])]
        first = bisect_left(self._folders, folder)
        last = bisect_left(self._folders, folder[:-1] + chr(ord("/") + 1))
        return above + self._sorted[first:last]


@lru_cache(maxsize=16)
def _locations(repo: ConfigRepo, cluster: str) -> _Locations:
    """The index of `cluster`'s dated file locations in `repo` (a loaded repo does not change; the cache keeps the
    last few repos, for the tests and a long-lived process)."""
    found = []
    for other in repo.feeds.values():
        if other.cluster(cluster) is None or other.table_on(cluster) is not None:
            continue
        for kind, text in other.locations_on(cluster).items():
            theirs = PathTemplate(text)
            if theirs.can_date_instances:
                found.append(_Location(other.name, kind, theirs, resolve_zone(other.timezone),
                                       _folder(theirs.static_prefix)))
    return _Locations(found)


def _folder(static_prefix: str) -> str:
    """A static folder ending in one '/' ('/' for the root, or for a template with no folder before a variable)."""
    return static_prefix.rstrip("/") + "/" if static_prefix.startswith("/") else "/"


def _nth_slash(text: str, n: int) -> int:
    """The index of the n-th '/' of `text` (n from 1)."""
    index = -1
    for _ in range(n):
        index = text.index("/", index + 1)
    return index


def keep_others(fs: FileSystem, root: str, plan: LocationPlan,
                others: list[Neighbour]) -> tuple[LocationPlan, list[Refusal]]:
    """The plan without the deletions that would remove another feed's instance, and the instances kept.
    A folder of several expired instances that holds one is replaced by its instances, each checked alone."""
    if not others:
        return plan, []
    base = root.rstrip("/")
    instances = {instance.path: instance for instance in plan.expired}
    deletions: list[str] = []
    refused: list[Refusal] = []
    for path in plan.deletions:
        found = _other_instance(fs, base, path, others)
        if found is None:
            deletions.append(path)
            continue
        inside = [instances[path]] if path in instances else \
            [i for i in plan.expired if i.path.startswith(path.rstrip("/") + "/")]
        for instance in inside:
            hit = found if instance.path == path else _other_instance(fs, base, instance.path, others)
            if hit is None:
                deletions.append(instance.path)
            else:
                refused.append(Refusal(instance.time, instance.path, hit[0], hit[1]))
    kept = {refusal.path for refusal in refused}
    expired = tuple(instance for instance in plan.expired if instance.path not in kept)
    return replace(plan, expired=expired, deletions=tuple(deletions)), refused


def _other_instance(fs: FileSystem, base: str, path: str, others: list[Neighbour]) -> tuple[str, str] | None:
    """(feed, path) of another feed's instance that `path` is, lies inside, or holds; None when there is none."""
    relative = path[len(base):]
    parts = path_segments(relative)
    for depth in range(len(parts), 0, -1):
        candidate = "/" + "/".join(parts[:depth])
        for other in others:
            if other.template.parse(candidate, other.zone) is not None:
                return other.feed, base + candidate
    deepest = max(other.depth for other in others) - len(parts)
    level = [path]
    for _ in range(deepest):
        following = []
        for children in fs.list_many(level).values():
            for child in children:
                candidate = child.path[len(base):]
                for other in others:
                    if other.template.parse(candidate, other.zone) is not None:
                        return other.feed, child.path
                if child.is_dir:
                    following.append(child.path)
        level = following
    return None
