"""What to delete for one templated location of a feed: a level-by-level walk of the tree under the
template's static base, with strict parsing at every level.

- Only entries that match the template's segment at their depth are looked into; everything else
  (`2015-3-05`, `someFolder`, a file at the wrong depth) is foreign and never touched.
- A symbolic link is foreign whatever its name: never looked into, never deleted (so a folder holding one is
  never deleted in one piece), and listed in the plan (`links`) for the run's record.
- A subtree whose whole time range starts at or after the cut-off is not listed at all (pruned).
- A directory whose whole range ends at or before the cut-off and that holds only expired instances
  (or such directories) is deleted in one recursive call; instances elsewhere are deleted one by one.
- One batched listing per level, so the number of file-system round trips is the depth, not the
  number of directories.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from toolkit.core.el.calendar import add_months
from toolkit.core.el.templates import DATE_VARIABLES, PathTemplate, TemplateText
from toolkit.core.el.timezones import UTC, from_local
from toolkit.core.storage.filesystem import FileStatus, FileSystem
from toolkit.extensions.retention_actions.location_plan import ExpiredInstance, LocationPlan
from toolkit.uris import join_under

_ORDER = tuple(DATE_VARIABLES)  # YEAR, MONTH, DAY, HOUR, MINUTE
_FIELDS = {"YEAR": "year", "MONTH": "month", "DAY": "day", "HOUR": "hour", "MINUTE": "minute"}


@dataclass
class _Node:
    """A listed directory of the walk; `complete` when every child is expired (or such a directory)."""

    path: str
    values: dict[str, int]
    parent: _Node | None
    older: bool  # its whole time range ends at or before the cut-off
    children: list[_Node] = field(default_factory=list)
    expired: list[ExpiredInstance] = field(default_factory=list)
    others: int = 0  # entries that are not expired instances or walked directories
    links: list[str] = field(default_factory=list)  # symbolic links in it: foreign, left in place

    @property
    def emptied(self) -> bool:
        """Nothing is left in it once its expired instances and emptied subdirectories are gone."""
        return self.others == 0 and all(child.emptied for child in self.children)

    @property
    def complete(self) -> bool:
        """Emptied, and no instance can still arrive in it (its whole range is before the cut-off), so it
        can go in one recursive delete."""
        return self.older and self.emptied


def _range(values: dict[str, int], zone: ZoneInfo) -> tuple[datetime, datetime] | None:
    """The instants [first, end) that a subtree with these leading variable values can hold; None when
    the values are not a leading run of YEAR, MONTH, DAY, HOUR, MINUTE (then nothing can be pruned)."""
    known = [name for name in _ORDER if name in values]
    if not known or known != list(_ORDER[: len(known)]):
        return None
    try:
        first = datetime(values["YEAR"], values.get("MONTH", 1), values.get("DAY", 1), values.get("HOUR", 0),
                         values.get("MINUTE", 0))
        finest = known[-1]
        if finest in ("YEAR", "MONTH"):
            end = add_months(first, 12 if finest == "YEAR" else 1)
        else:
            end = first + timedelta(**{{"DAY": "days", "HOUR": "hours", "MINUTE": "minutes"}[finest]: 1})
        return from_local(first, zone), from_local(end, zone)
    except (ValueError, OverflowError):
        return None


def plan_location(fs: FileSystem, root: str, kind: str, template: PathTemplate, zone: ZoneInfo,
                  cut_off: datetime) -> LocationPlan:
    """Walk the location's tree and decide what to delete (nothing is deleted here). `root` may be spelled in
    any way (`file:/x`, `file:///x/`, `file:///`): paths are built and sliced in one spelling."""
    base = join_under(root, template.static_prefix)
    rest = template.text[len(template.static_prefix):].strip("/")
    segments = [TemplateText(segment) for segment in rest.split("/")]
    top = _Node(base, {}, None, older=False)
    link = fs.first_link_below(root, base)  # the base, or a folder above it, leading elsewhere: never walked
    if link is not None:
        return LocationPlan(kind, template.text, base, (), (), (), (link,))
    if fs.status(base) is None:
        return LocationPlan(kind, template.text, base, (), (), ())
    level = [top]
    for depth, segment in enumerate(segments):
        leaf = depth == len(segments) - 1
        listed = fs.list_kinds_many([node.path for node in level])
        following: list[_Node] = []
        for node in level:
            for entry in listed.get(node.path, []):
                following.extend(_visit(node, entry, segment, leaf, zone, cut_off))
        level = following
    return _decide(kind, template.text, top)


def _visit(node: _Node, entry: FileStatus, segment: TemplateText, leaf: bool, zone: ZoneInfo,
           cut_off: datetime) -> list[_Node]:
    if entry.is_link:
        node.others += 1
        node.links.append(entry.path)
        return []
    found = segment.match(entry.name)
    if found is None or not (found.keys().isdisjoint(node.values)
                             or all(node.values.get(name, number) == number for name, number in found.items())):
        node.others += 1  # no name of this level, or a variable that disagrees with the one above
        return []
    values = {**node.values, **found}
    if leaf:
        instance_time = _instance_time(values, zone)
        if instance_time is not None and instance_time < cut_off:
            node.expired.append(ExpiredInstance(instance_time, entry.path, entry))
        else:
            node.others += 1  # kept (newer), or a name that is no valid instance
        return []
    span = _range(values, zone)
    if not entry.is_dir or (span is not None and span[0] >= cut_off):
        node.others += 1  # a file where a directory belongs, or a subtree wholly newer: pruned
        return []
    child = _Node(entry.path, values, node, older=span is not None and span[1] <= cut_off)
    node.children.append(child)
    return [child]


def _instance_time(values: dict[str, int], zone: ZoneInfo) -> datetime | None:
    """The time of the instance whose path gave `values` (every variable of the template, each matched at its
    width by its segment, the rest of the path being the template's literal text): what `PathTemplate.parse` of
    the path gives, without parsing it again. None without a YEAR, for no such date, or for a wall time the zone
    skips (the time read back in the zone is not the path's: the instance's path would be another)."""
    if "YEAR" not in values:
        return None
    utc = zone.key == "UTC"  # no wall time is skipped or repeated there: the wall time is the instant
    try:
        wall = datetime(values["YEAR"], values.get("MONTH", 1), values.get("DAY", 1), values.get("HOUR", 0),
                        values.get("MINUTE", 0), tzinfo=UTC if utc else None)
        if utc:
            return wall
        t = from_local(wall, zone)
    except (ValueError, OverflowError):
        return None
    local = t.astimezone(zone)
    same = all(getattr(local, _FIELDS[name]) == number for name, number in values.items())
    return t if same else None


def _decide(kind: str, template: str, top: _Node) -> LocationPlan:
    expired: list[ExpiredInstance] = []
    deletions: list[str] = []
    parents: list[str] = []
    links: list[str] = []

    def collect(node: _Node, inside_deleted: bool) -> None:
        deleted_here = not inside_deleted and node.parent is not None and node.complete
        if deleted_here:
            deletions.append(node.path)
        elif not inside_deleted:
            deletions.extend(instance.path for instance in node.expired)
        expired.extend(node.expired)
        links.extend(node.links)
        for child in node.children:
            collect(child, inside_deleted or deleted_here)
        if not inside_deleted and not deleted_here and node.parent is not None and node.emptied:
            parents.append(node.path)

    collect(top, False)
    parents.sort(key=lambda path: -path.count("/"))
    return LocationPlan(kind, template, top.path, tuple(sorted(expired, key=lambda i: (i.time, i.path))),
                        tuple(deletions), tuple(parents), tuple(sorted(links)))

