"""RP009: two feeds on one cluster never share folders.

Why:
When a location template of one feed can name the same path as another feed's, or a folder holding the other's
instances, the retention of one deletes the other's instances (and their writers overwrite each other). Only the
locations the toolkit writes or deletes count: a dated location of any type (`data`, `stats`, `meta`, `tmp`: each
planned by retention) and the `data` location (where every action writes). An undated `stats` or `meta` folder,
which Falcon's definitions often share between feeds, is neither deleted nor written, so two of them may be one
folder; it is reported only where a written or deleted location of another feed overlaps it. Cluster overrides
are applied; feeds on different clusters never collide. The templates of a cluster go into a trie of path
segments; each written or deleted template walks it once along the segments compatible with its own (a literal,
or a variable of the same digits), so a repo of thousands of feeds is checked in about one walk per template, not
one comparison per pair.

Anti-pattern: clicks-by-day's day folders hold the hours of clicks; its days(7) retention deletes them.

    - {name: clicks, locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}}
    - {name: clicks-by-day, locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}"}}

Best practice: a folder of its own for each feed.

    - {name: clicks, locations: {data: "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}}
    - {name: clicks-by-day, locations: {data: "/data/clicks-by-day/${YEAR}/${MONTH}/${DAY}"}}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.authoring.lint.rules.feed._common import FILES, storages, unknown_variables, where
from toolkit.core.el.templates import PathTemplate, path_segments, segment_shape, segments_compatible
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.model import Feed


@dataclass(frozen=True, eq=False)
class _Location:
    """One location template of a feed on a cluster, with the YAML path of its value."""

    feed: Feed
    type: str
    text: str
    path: FieldPath
    segments: tuple[str, ...]

    @property
    def touched(self) -> bool:
        """Written by an action (the data location) or deleted by retention (a dated location)."""
        return self.type == "data" or PathTemplate(self.text).is_dated


class _Node:
    """Templates sharing the segments from the root to here, and the children by segment text and by
    (is a variable segment, shape): a segment can only match a child of its own shape."""

    __slots__ = ("children", "shapes", "ends")  # a trie of a large repo has tens of thousands of nodes

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.shapes: dict[tuple[bool, str], list[tuple[str, _Node]]] = {}
        self.ends: list[_Location] = []

    def child(self, segment: str) -> _Node:
        found = self.children.get(segment)
        if found is None:
            found = self.children[segment] = _Node()
            self.shapes.setdefault(("${" in segment, segment_shape(segment)), []).append((segment, found))
        return found

    def compatible(self, segment: str) -> Iterator[_Node]:
        """The children whose segment can name the same folder as `segment`."""
        shape = segment_shape(segment)
        if "${" in segment:
            candidates = [*self.shapes.get((False, shape), ()), *self.shapes.get((True, shape), ())]
        else:
            exact = self.children.get(segment)
            if exact is not None:
                yield exact
            candidates = self.shapes.get((True, shape), [])
        yield from (node for text, node in candidates if segments_compatible(text, segment))


@register
class SharedPaths(Rule):
    code = "RP009"
    summary = "Two feeds on one cluster have location templates that share folders."
    reports_outside_selection = True  # like a cycle: the unchanged feed is reported too

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        by_cluster: dict[str, list[_Location]] = {}
        for feed in ctx.repo.feeds.values():
            for _, cluster, storage in storages(feed):
                if storage.kind != FILES:
                    continue
                for type_, text in storage.locations.items():
                    segments = path_segments(text)
                    if segments and not unknown_variables(text):  # FD008 reports unknown variables
                        by_cluster.setdefault(cluster.name, []).append(
                            _Location(feed, type_, text, storage.path("locations", type_), segments))
        for cluster_name, locations in sorted(by_cluster.items()):
            yield from self._overlaps(cluster_name, locations)

    def _overlaps(self, cluster: str, locations: list[_Location]) -> Iterator[Finding]:
        root = _Node()
        for location in locations:
            node = root
            for segment in location.segments:
                node = node.child(segment)
            node.ends.append(location)
        reported: set[tuple[int, int]] = set()
        for location in (location for location in locations if location.touched):  # a pair needs one
            frontier = [root]
            for segment in location.segments:
                frontier = [found for node in frontier for found in node.compatible(segment)]
                for other in (other for node in frontier for other in node.ends):
                    pair = (min(id(location), id(other)), max(id(location), id(other)))
                    if other.feed.name == location.feed.name or pair in reported:
                        continue
                    reported.add(pair)
                    yield self._finding(cluster, other, location)
                    yield self._finding(cluster, location, other)

    @staticmethod
    def _finding(cluster: str, mine: _Location, theirs: _Location) -> Finding:
        if len(mine.segments) == len(theirs.segments):
            how = "the same instance paths"
        elif len(mine.segments) < len(theirs.segments):
            how = "its instances lie inside this feed's"
        else:
            how = "this feed's instances lie inside its"
        if mine.touched and theirs.touched:
            harm = "the retention or the writers of one would delete or overwrite the other's instances"
        elif mine.touched:
            harm = "the retention or the writers of this feed would delete or overwrite what that feed keeps there"
        else:
            harm = (f"the retention or the writers of feed '{theirs.feed.name}' would delete or overwrite what this "
                    "feed keeps there")
        return Finding(
            mine.feed,
            f"on cluster '{cluster}', {where(mine.path)} {mine.text!r} overlaps the {theirs.type} location "
            f"{theirs.text!r} of feed '{theirs.feed.name}' ({how}): {harm}; give each feed a folder of its own "
            "(e.g. /data/<feed>/...).",
            mine.path,
        )
