"""FD043: the datasource a feed exports to has a `write` interface.

Why:
An export writes its rows through the datasource's `write` interface (Falcon's datasource has a `readonly` and a
`write` one; imports read either, exports only write). A datasource with only a `readonly` endpoint would let
the schedule call the export every period and each call fail with exit 2, found when the first instance is due
rather than when the definition is committed.

Anti-pattern:

    # datasources/reports-db.yaml
    interfaces:
      readonly: {endpoint: "jdbc:mysql://reports:3306/reports"}

Best practice:

    # datasources/reports-db.yaml
    interfaces:
      readonly: {endpoint: "jdbc:mysql://reports:3306/reports"}
      write: {endpoint: "jdbc:mysql://reports:3306/reports"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class ExportNeedsWriteInterface(EntityRule[Feed]):
    code = "FD043"
    summary = "The datasource a feed exports to has a write interface."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            policy = cluster.export
            if policy is None:
                continue
            datasource = ctx.repo.datasources.get(policy.datasource)
            if datasource is None or "write" in datasource.interfaces:  # a missing one is RP004's
                continue
            yield Finding(
                entity,
                f"the export on cluster '{cluster.name}' writes to datasource '{datasource.name}', which has no "
                "write interface (only "
                + ", ".join(sorted(datasource.interfaces))
                + "); add interfaces.write with the JDBC endpoint to export to.",
                ("clusters", index, "export", "target", "name"),
            )
