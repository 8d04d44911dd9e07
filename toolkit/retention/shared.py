"""Other feeds' instances in this feed's tree. Two feeds of a repo may share folders (RP009 reports it, but the
linter may not have run): the evictor never deletes a path that is, holds, or lies inside an instance of another
feed on the cluster. Such an expired instance is kept and reported; the others are evicted.

Only the other feeds whose templates overlap this location's are looked for (`templates_overlap`), so a repo
without shared folders costs nothing; with one, each planned deletion's tree is listed down to the depth of the
other feed's instances, one batched listing per level.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from toolkit.el.templates import PathTemplate, path_segments, templates_overlap
from toolkit.el.timezones import resolve_zone
from toolkit.entities.repo import ConfigRepo
from toolkit.retention_actions.location_plan import LocationPlan
from toolkit.storage.filesystem import FileSystem


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
    templates whose static folders nest can overlap (every instance lies under its template's static folder), so
    the others are passed over on a string comparison: a cluster's call for all its feeds asks this of each."""
    found = []
    mine = template.static_prefix
    for other in repo.feeds.values():
        if other.name == feed or other.cluster(cluster) is None or other.table_on(cluster) is not None:
            continue
        for kind, text in other.locations_on(cluster).items():
            theirs = _template(text)
            if not _nested(mine, theirs.static_prefix):
                continue
            if theirs.can_date_instances and templates_overlap(template, theirs):
                found.append(Neighbour(other.name, kind, theirs, resolve_zone(other.timezone)))
    return found


@lru_cache(maxsize=4096)
def _template(text: str) -> PathTemplate:
    """A location's template, parsed once per text (templates are immutable)."""
    return PathTemplate(text)


def _nested(one: str, other: str) -> bool:
    """Whether one of two static folders is the other or lies inside it (anything else: disjoint subtrees)."""
    one, other = one.rstrip("/") + "/", other.rstrip("/") + "/"
    return one.startswith(other) or other.startswith(one)


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
