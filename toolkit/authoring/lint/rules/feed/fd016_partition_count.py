"""FD016: a cluster's `partition` expression has no more parts than the feed has `partitions`.

Why:
A partition expression selects folders below the feed's partitions: a part without a partition selects nothing.
For a target, it counts together with each source's expression (replication selects the source's partition,
then the target's below it, as Falcon joined them).

Anti-pattern:

    partitions: [country]
    clusters:
      - {name: primary, type: source, partition: "us/west"}

Best practice:

    partitions: [country, region]
    clusters:
      - {name: primary, type: source, partition: "us/west"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import partition_parts, sources, targets
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class PartitionCount(EntityRule[Feed]):
    code = "FD016"
    summary = "A partition expression (a target's with each source's) has no more parts than the feed's partitions."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        allowed = len(entity.partitions)
        if allowed:
            plural = "s" if allowed > 1 else ""
            declared = f"the feed declares {allowed} partition{plural} ({', '.join(entity.partitions)})"
        else:
            declared = "the feed declares no partitions"
        too_many = set()
        for index, cluster in enumerate(entity.clusters):
            parts = partition_parts(cluster.partition)
            if len(parts) > allowed:
                too_many.add(index)
                yield Finding(
                    entity,
                    f"clusters[{index}].partition {cluster.partition!r} on cluster '{cluster.name}' has "
                    f"{len(parts)} part{'s' if len(parts) != 1 else ''}, but {declared}; give at most {allowed} "
                    "part(s) separated by '/', or add partitions to the feed.",
                    ("clusters", index, "partition"),
                )
        for target in targets(entity):
            own = partition_parts(entity.clusters[target].partition)
            if not own or target in too_many:
                continue
            for source in sources(entity):
                combined = partition_parts(entity.clusters[source].partition) + own
                if source in too_many or len(combined) <= allowed:
                    continue
                cluster, source_cluster = entity.clusters[target], entity.clusters[source]
                yield Finding(
                    entity,
                    f"clusters[{target}].partition {cluster.partition!r} on target '{cluster.name}', below source "
                    f"'{source_cluster.name}''s partition {source_cluster.partition!r}, selects {len(combined)} "
                    f"parts ({'/'.join(combined)}), but {declared}; together they may have at most {allowed}.",
                    ("clusters", target, "partition"),
                )
