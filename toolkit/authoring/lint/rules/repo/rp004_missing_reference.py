"""RP004: every referenced cluster, feed and datasource exists (a mirror's three clusters too).

Why:
This is what makes deleting a still-used feed, cluster or datasource (a feed's import or export names it) fail,
so its findings are reported even when only other files were changed. A reference to an entity whose file exists
but fails to load (YAML or schema) is not reported: that file's own finding is the one cause
(`ConfigRepo.unloaded`). The references of a file whose schema fails are still read from its YAML and checked, so
that a bad frequency does not hide a misspelt feed.

Anti-pattern: no feed clickz in feeds/.

    inputs: [{name: clicks, feed: clickz, start: "now(0,0)", end: "now(0,0)"}]

Best practice: name an existing feed, or add feeds/clickz.yaml.

    inputs: [{name: clicks, feed: clicks, start: "now(0,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.authoring.lint.rules.repo._known import known_names
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import Entity, Feed, FeedCluster, Mirror, Process, ProcessCluster
from toolkit.core.entities.problems import Problem


@register
class MissingReference(Rule):
    code = "RP004"
    summary = "No reference to a cluster, feed or datasource that does not exist."
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding | Problem]:
        yield from self._in_unloaded_files(ctx)
        clusters, feeds, unloaded = ctx.repo.clusters, ctx.repo.feeds, ctx.repo.unloaded
        for entity in ctx.repo.entities:
            if isinstance(entity, (Feed, Process)):
                entity_clusters: tuple[FeedCluster | ProcessCluster, ...] = entity.clusters
                for index, cluster in enumerate(entity_clusters):
                    yield from _missing(entity, EntityRef(Kind.CLUSTER, cluster.name), clusters, unloaded,
                                        ("clusters", index, "name"))
            if isinstance(entity, Feed):
                for index, feed_cluster in enumerate(entity.clusters):
                    for path, name in _datasource_names(feed_cluster):
                        yield from _missing(entity, EntityRef(Kind.DATASOURCE, name), ctx.repo.datasources, unloaded,
                                            ("clusters", index, *path))
            if isinstance(entity, Process):
                for field, items in (("inputs", entity.inputs), ("outputs", entity.outputs)):
                    for index, item in enumerate(items):
                        yield from _missing(entity, EntityRef(Kind.FEED, item.feed), feeds, unloaded,
                                            (field, index, "feed"))
            if isinstance(entity, Mirror):
                for field, name in _mirror_clusters(entity):
                    yield from _missing(entity, EntityRef(Kind.CLUSTER, name), clusters, unloaded, (field,))


    def _in_unloaded_files(self, ctx: LintContext) -> Iterator[Problem]:
        known: dict[Kind, Mapping[str, Entity]] = {
            Kind.CLUSTER: ctx.repo.clusters, Kind.FEED: ctx.repo.feeds, Kind.DATASOURCE: ctx.repo.datasources}
        for ref, doc in ctx.repo.unloaded_documents:
            for path, target in _raw_references(ref.kind, doc.data):
                if target.name not in known[target.kind] and target not in ctx.repo.unloaded:
                    span = doc.span(path)
                    message = (f"{ref.kind.label} '{ref.name}': {_where(path)} {target.name!r} is not defined in this "
                               f"repo; {known_names(target.name, known[target.kind], target.kind.folder)}.")
                    yield Problem(span.file, span.line, span.column, self.code, self.severity, message, ref)


def _raw_references(kind: Kind, data: Mapping[str, object]) -> Iterator[tuple[FieldPath, EntityRef]]:
    """The cluster, feed and datasource names a feed's, process's or mirror's YAML names where the schema puts them,
    as far as it reads."""
    def items(field: str) -> list[object]:
        value = data.get(field)
        return value if isinstance(value, list) else []

    if kind in (Kind.FEED, Kind.PROCESS):
        for index, item in enumerate(items("clusters")):
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                yield ("clusters", index, "name"), EntityRef(Kind.CLUSTER, item["name"])
            if kind is Kind.FEED and isinstance(item, dict):
                for policy, side in (("import", "source"), ("export", "target")):
                    raw_policy = item.get(policy)
                    table = raw_policy.get(side) if isinstance(raw_policy, dict) else None
                    if isinstance(table, dict) and isinstance(table.get("name"), str):
                        yield ("clusters", index, policy, side, "name"), EntityRef(Kind.DATASOURCE, table["name"])
    if kind is Kind.MIRROR:
        for field in MIRROR_CLUSTER_FIELDS:
            if isinstance(data.get(field), str):
                yield (field,), EntityRef(Kind.CLUSTER, str(data[field]))
    if kind is Kind.PROCESS:
        for field in ("inputs", "outputs"):
            for index, item in enumerate(items(field)):
                if isinstance(item, dict) and isinstance(item.get("feed"), str):
                    yield (field, index, "feed"), EntityRef(Kind.FEED, item["feed"])


MIRROR_CLUSTER_FIELDS = ("jobClusterName", "sourceCluster", "targetCluster")


def _mirror_clusters(mirror: Mirror) -> Iterator[tuple[str, str]]:
    yield from zip(MIRROR_CLUSTER_FIELDS, (mirror.job_cluster_name, mirror.source_cluster, mirror.target_cluster),
                   strict=True)


def _datasource_names(cluster: FeedCluster) -> Iterator[tuple[FieldPath, str]]:
    if cluster.import_ is not None:
        yield ("import", "source", "name"), cluster.import_.datasource
    if cluster.export is not None:
        yield ("export", "target", "name"), cluster.export.datasource


def _where(path: FieldPath) -> str:
    return ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")


def _missing(entity: Entity, ref: EntityRef, known: Mapping[str, Entity], unloaded: frozenset[EntityRef],
             path: tuple[str | int, ...]) -> Iterator[Finding]:
    name, what = ref.name, ref.kind.folder
    if name not in known and ref not in unloaded:
        yield Finding(entity, f"{_where(path)} {name!r} is not defined in this repo; "
                              f"{known_names(name, known, what)}.", path)
