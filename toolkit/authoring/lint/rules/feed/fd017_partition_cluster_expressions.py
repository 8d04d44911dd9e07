"""FD017: a cluster's `partition` uses only cluster expressions that resolve on that cluster.

Why:
`${cluster.name}`, `${cluster.colo}` and `${cluster.<property>}` are the expressions a partition can use. As
Falcon's FeedEntityParser.validateFeedPartitionExpression requires, where a feed is replicated from several
sources each source's partition has at least one, so that the sources' data stay apart on the targets, and where
it is replicated to several targets each target's partition (when it has one) has at least one, so that each
target names its own part. A cluster the repo does not define is skipped: RP004 reports missing references.

Anti-pattern: one source, two targets.

    clusters:
      - {name: primary, type: source}
      - {name: backup, type: target, partition: us-west}
      - {name: archive, type: target}

Best practice: or no partition on backup: it takes all of the data.

    clusters:
      - {name: primary, type: source}
      - {name: backup, type: target, partition: "${cluster.colo}"}
      - {name: archive, type: target}
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import VARIABLE, partition_parts, sources, targets
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster, Feed

CLUSTER_EXPRESSION = re.compile(r"^\s*cluster\.(?P<field>[^\s}]+)\s*$")


def resolvable(cluster: Cluster) -> list[str]:
    """The fields `${cluster.X}` can name on `cluster`."""
    fields = ["name"] + (["colo"] if cluster.colo else [])
    return fields + [name for name in cluster.properties if name not in fields]


@register
class PartitionClusterExpressions(EntityRule[Feed]):
    code = "FD017"
    summary = (
        "Partition expressions are ${cluster.X} that resolve; several sources, or several targets, each have one."
    )
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        source_indexes, target_indexes = sources(entity), targets(entity)
        need = set()
        if len(source_indexes) > 1 and target_indexes:
            need.update(source_indexes)
        if source_indexes and len(target_indexes) > 1:
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
            if index not in need or good or VARIABLE.search(expression):
                continue  # one with an unresolved ${...} is reported above
            choices = ", ".join(f"${{cluster.{name}}}" for name in fields)
            if index in target_indexes:  # an empty one ('/') too, as Falcon
                yield Finding(
                    entity,
                    f"{field} on target '{cluster.name}' has no cluster expression, but the feed is replicated to "
                    f"{len(target_indexes)} targets, and each target's partition must name its own part (as in "
                    f"Falcon): use at least one of {choices}, e.g. ${{cluster.name}}, or remove the partition to "
                    "take all of the data.",
                    ("clusters", index, "partition"),
                )
            elif partition_parts(expression):  # an empty one ('/') on a source is FD018's
                yield Finding(
                    entity,
                    f"{field} on source '{cluster.name}' has no cluster expression, but the feed is replicated "
                    f"from {len(source_indexes)} sources, whose data would mix on the targets; use at least one "
                    f"of {choices}, e.g. ${{cluster.name}}/*.",
                    ("clusters", index, "partition"),
                )
