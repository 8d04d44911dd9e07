"""RP004: every referenced cluster and feed exists.

Why:
This is what makes deleting a still-used feed or cluster fail, so its findings are reported even when only
other files were changed. A reference to an entity whose file exists but fails to load (YAML or schema) is not
reported: that file's own finding is the one cause (`ConfigRepo.unloaded`).

Anti-pattern: no feed clickz in feeds/.

    inputs: [{name: clicks, feed: clickz, start: "now(0,0)", end: "now(0,0)"}]

Best practice: name an existing feed, or add feeds/clickz.yaml.

    inputs: [{name: clicks, feed: clicks, start: "now(0,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toolkit.entities.kinds import EntityRef, Kind
from toolkit.entities.model import Entity, Feed, FeedCluster, Process, ProcessCluster
from toolkit.lint.context import LintContext
from toolkit.lint.rule import Finding, Rule, register
from toolkit.lint.rules.repo._known import known_names


@register
class MissingReference(Rule):
    code = "RP004"
    summary = "No reference to a cluster or feed that does not exist."
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        clusters, feeds, unloaded = ctx.repo.clusters, ctx.repo.feeds, ctx.repo.unloaded
        for entity in ctx.repo.entities:
            if isinstance(entity, (Feed, Process)):
                entity_clusters: tuple[FeedCluster | ProcessCluster, ...] = entity.clusters
                for index, cluster in enumerate(entity_clusters):
                    yield from _missing(entity, EntityRef(Kind.CLUSTER, cluster.name), clusters, unloaded,
                                        ("clusters", index, "name"))
            if isinstance(entity, Process):
                for field, items in (("inputs", entity.inputs), ("outputs", entity.outputs)):
                    for index, item in enumerate(items):
                        yield from _missing(entity, EntityRef(Kind.FEED, item.feed), feeds, unloaded,
                                            (field, index, "feed"))


def _missing(entity: Entity, ref: EntityRef, known: Mapping[str, Entity], unloaded: frozenset[EntityRef],
             path: tuple[str | int, ...]) -> Iterator[Finding]:
    name, what = ref.name, ref.kind.folder
    if name not in known and ref not in unloaded:
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
        yield Finding(entity, f"{where} {name!r} is not defined in this repo; {known_names(name, known, what)}.", path)
