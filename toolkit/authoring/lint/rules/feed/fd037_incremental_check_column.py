"""FD037: an incremental import names the column that orders the table's rows (`arguments.check-column`).

Why:
An incremental import reads only the rows past the last one it imported; which rows those are is told by a
column whose values grow with new rows (an id, an update time): Sqoop's `--check-column`, here
`arguments.check-column`. Without it, there is no high-water mark and nothing tells new rows from old ones.
Falcon's `deltacolumn` is not read for it.

Anti-pattern:

    import:
      source: {name: sales-db, tableName: orders, extract: {type: incremental, mergepolicy: append}}

Best practice:

    import:
      source: {name: sales-db, tableName: orders, extract: {type: incremental, mergepolicy: append}}
      arguments: {check-column: order_id}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import ExtractType, Feed


@register
class IncrementalCheckColumn(EntityRule[Feed]):
    code = "FD037"
    summary = "An incremental import names the column that orders the rows (arguments.check-column)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            policy = cluster.import_
            if policy is None or policy.source.extract.type is not ExtractType.INCREMENTAL:
                continue
            if policy.arguments.get("check-column", "").strip():
                continue
            yield Finding(
                entity,
                f"the import on cluster '{cluster.name}' is incremental but names no column that orders the rows "
                f"of table '{policy.source.table_name}'; add arguments.check-column (Sqoop's --check-column): a "
                "column whose values grow with new rows, such as an id or an update time.",
                ("clusters", index, "import", "source", "extract", "type"),
            )
