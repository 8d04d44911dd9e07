"""FD014: a catalog-table feed has no `partitions` list: its partitions are the keys of its table URI.

Why:
A second list of partitions could disagree with the table URI's keys, and nothing would say which one holds.

Anti-pattern:

    table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}
    partitions: [country]

Best practice:

    table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import storages
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class NoPartitionsOnTables(EntityRule[Feed]):
    code = "FD014"
    summary = "A feed stored in a catalog table has no partitions list (the URI's keys are its partitions)."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if not entity.partitions:
            return
        table = next((storage.table for _, _, storage in storages(entity) if storage.table is not None), None)
        if table is None:
            return
        yield Finding(
            entity,
            f"partitions {list(entity.partitions)} is given, but the feed is stored in the catalog table {table!r}; "
            "a table feed's partitions are the keys of its URI (catalog:db:table#key=value;key=value): "
            "remove partitions and name them in the URI.",
            ("partitions",),
        )
