"""FD038: an `updateonly` export names the key of the rows it updates (`arguments.update-key`).

Why:
An `updateonly` export changes rows that exist in the target table; which row an exported record updates is
told by the key columns, Sqoop's `--update-key`, here `arguments.update-key` (columns separated by commas).
Without them, there is no row to match and nothing is updated.

Anti-pattern:

    export:
      target: {name: reports-db, tableName: daily_sales, load: {type: updateonly}}

Best practice:

    export:
      target: {name: reports-db, tableName: daily_sales, load: {type: updateonly}}
      arguments: {update-key: day}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed, LoadType


@register
class UpdateNeedsKey(EntityRule[Feed]):
    code = "FD038"
    summary = "An updateonly export names the key of the rows it updates (arguments.update-key)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            policy = cluster.export
            if policy is None or policy.target.load is not LoadType.UPDATE_ONLY:
                continue
            if policy.arguments.get("update-key", "").strip():
                continue
            yield Finding(
                entity,
                f"the export on cluster '{cluster.name}' is updateonly but names no key of the rows of table "
                f"'{policy.target.table_name}' it updates; add arguments.update-key (Sqoop's --update-key): the "
                "key columns, separated by commas.",
                ("clusters", index, "export", "target", "load", "type"),
            )
