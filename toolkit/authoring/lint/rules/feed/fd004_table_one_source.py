"""FD004: a catalog-table feed has at most one source cluster.

Why:
Table replication copies partitions from one metastore to the others: with two sources, the targets would not
know which table to copy from.

Anti-pattern:

    table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}
    clusters:
      - {name: primary, type: source}
      - {name: backup, type: source}

Best practice:

    table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}
    clusters:
      - {name: primary, type: source}
      - {name: backup, type: target}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import is_table_feed, sources
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class TableOneSource(EntityRule[Feed]):
    code = "FD004"
    summary = "A catalog-table feed has at most one source cluster."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        source_indexes = sources(entity)
        if len(source_indexes) < 2 or not is_table_feed(entity):
            return
        first = entity.clusters[source_indexes[0]].name
        for index in source_indexes[1:]:
            yield Finding(
                entity,
                f"clusters[{index}].type is 'source' on cluster '{entity.clusters[index].name}', a second source "
                f"after '{first}'; a feed stored in a catalog table has at most one source: make this cluster "
                "a target (replicated from the source) or remove its type.",
                ("clusters", index, "type"),
            )
