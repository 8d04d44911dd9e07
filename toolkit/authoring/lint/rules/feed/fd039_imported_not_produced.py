"""FD039: a feed imported from a database on a cluster is not also an output of a process there.

Why:
The import writes every instance of the feed on that cluster; a process that outputs the same feed there
writes the same instances, and the last writer wins: each overwrites the other's data. One producer per feed
and cluster.

Anti-pattern: feeds/customers.yaml imports on primary, and a process on primary outputs customers.

    outputs: [{name: customers, feed: customers, instance: "now(0,0)"}]

Best practice: the process outputs another feed (customers-cleaned) that reads customers as an input.

    inputs: [{name: customers, feed: customers, start: "now(0,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class ImportedNotProduced(EntityRule[Feed]):
    code = "FD039"
    summary = "A feed imported from a database is not also an output of a process on that cluster."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        writers = ctx.writers.get(entity.name, ())
        for index, cluster in enumerate(entity.clusters):
            if cluster.import_ is None:
                continue
            producers = [process.name for process in writers if process.cluster(cluster.name) is not None]
            if producers:
                yield Finding(
                    entity,
                    f"it is imported from datasource '{cluster.import_.datasource}' on cluster '{cluster.name}', and "
                    f"process {', '.join(producers)} also outputs it there: both would write the same instances; "
                    "keep one producer (make the process write another feed).",
                    ("clusters", index, "import"),
                )
