"""FD017: a cluster's `partition` uses only cluster expressions that resolve on that cluster
(`${cluster.name}`, `${cluster.colo}`, `${cluster.<property>}`); and where a feed is replicated from
several sources, each source's partition (and, with several targets too, each target's) has at least one,
so that the sources' data stay apart on the targets (Falcon's rule).

A cluster the repo does not define is skipped: RP004 reports missing references."""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Cluster, Feed
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.lint.rules.feed._common import VARIABLE, partition_parts, sources, targets

CLUSTER_EXPRESSION = re.compile(r"^\s*cluster\.(?P<field>[^\s}]+)\s*$")


def resolvable(cluster: Cluster) -> list[str]:
    """The fields `${cluster.X}` can name on `cluster`."""
    fields = ["name"] + (["colo"] if cluster.colo else [])
    return fields + [name for name in cluster.properties if name not in fields]


@register
class PartitionClusterExpressions(EntityRule):
    code = "FD017"
    summary = "Partition expressions are ${cluster.X} that resolve; several sources to a target each have one."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        source_indexes, target_indexes = sources(entity), targets(entity)
        need = set()
        if len(source_indexes) > 1 and target_indexes:
            need.update(source_indexes)
            if len(target_indexes) > 1:
                need.update(target_indexes)
        for index, feed_cluster in enumerate(entity.clusters):
            expression = feed_cluster.partition
            cluster = ctx.repo.clusters.get(feed_cluster.name)
            if expression is None or cluster is None:
                continue
            fields = resolvable(cluster)
            field = f"clusters[{index}].partition {expression!r}"
            good = 0
            for inner in VARIABLE.findall(expression):
                match = CLUSTER_EXPRESSION.match(inner)
                if match is not None and match.group("field") in fields:
                    good += 1
                    continue
                yield Finding(
                    entity,
                    f"{field} uses ${{{inner}}}, which does not resolve on cluster '{cluster.name}'; a partition "
                    f"may use {', '.join(f'${{cluster.{name}}}' for name in fields)} (name, colo and the "
                    "cluster's properties).",
                    ("clusters", index, "partition"),
                )
            # An empty expression ('/') on a source is FD018's; one with an unresolved ${...} is reported above.
            if index in need and good == 0 and not VARIABLE.search(expression) and partition_parts(expression):
                role = feed_cluster.type.value if feed_cluster.type else "cluster"
                yield Finding(
                    entity,
                    f"{field} on {role} '{cluster.name}' has no cluster expression, but the feed is replicated "
                    f"from {len(source_indexes)} sources, whose data would mix on the targets; use at least one "
                    "of " + ", ".join(f"${{cluster.{name}}}" for name in fields) + ", e.g. ${cluster.name}/*.",
                    ("clusters", index, "partition"),
                )
