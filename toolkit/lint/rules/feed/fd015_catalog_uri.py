"""FD015: a table URI is `catalog:database:table#key=value;key=value`, its values using only the date variables.

Why:
The actions take the database, the table and the partition of an instance from the URI; any other form, or a
variable other than the date variables, names no partition.

Anti-pattern:

    table: {uri: "catalog:web.clicks#ds=${DATE}"}

Best practice:

    table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.lint.rules.feed._common import catalog, where, written_tables


@register
class CatalogUri(EntityRule[Feed]):
    code = "FD015"
    summary = "A table URI is catalog:database:table#key=value;key=value."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for path, uri in written_tables(entity):
            parsed = catalog(uri)
            if isinstance(parsed, Exception):
                reason = str(parsed)
                hint = " Name each key once." if "repeats" in reason else ""
                yield Finding(entity, f"{where(path)}: {reason[:1].lower()}{reason[1:]}{hint}", path)
