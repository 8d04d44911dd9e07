"""FD018: when a feed is replicated from several sources, every source has a `partition` expression.

Why:
The partition says which part of the data a source owns; without it the sources overwrite each other on the
targets. As in Falcon, only when there is a target: several sources without replication need none.

Anti-pattern:

    partitions: [colo]
    clusters:
      - {name: primary, type: source, partition: "${cluster.colo}"}
      - {name: secondary, type: source}
      - {name: backup, type: target}

Best practice:

    partitions: [colo]
    clusters:
      - {name: primary, type: source, partition: "${cluster.colo}"}
      - {name: secondary, type: source, partition: "${cluster.colo}"}
      - {name: backup, type: target}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import partition_parts, sources, targets
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class SourcePartitions(EntityRule[Feed]):
    code = "FD018"
    summary = "With several sources replicated to a target, every source has a partition expression."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        source_indexes, target_indexes = sources(entity), targets(entity)
        if len(source_indexes) < 2 or not target_indexes:
            return
        names = ", ".join(f"'{entity.clusters[i].name}'" for i in source_indexes)
        target_names = ", ".join(f"'{entity.clusters[i].name}'" for i in target_indexes)
        for index in source_indexes:
            cluster = entity.clusters[index]
            if partition_parts(cluster.partition):
                continue
            given = "has no partition" if cluster.partition is None else f"has an empty partition {cluster.partition!r}"
            path = ("clusters", index, "name") if cluster.partition is None else ("clusters", index, "partition")
            yield Finding(
                entity,
                f"clusters[{index}] '{cluster.name}' {given}, but the feed is replicated from the sources {names} "
                f"to {target_names}; give every source a partition, e.g. partition: ${{cluster.name}}.",
                path,
            )
