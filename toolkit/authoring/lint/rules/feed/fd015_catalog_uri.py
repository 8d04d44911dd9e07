"""FD015: a table URI is `catalog:database:table#key=value;key=value`, its values using only the date variables.

Why:
The actions take the database, the table and the partition of an instance from the URI; any other form, or a
variable other than the date variables, names no partition. One exception, as Falcon accepts it: a key whose
whole value is another variable (`region=${region}`) is open, an instance being every partition of its dated
keys' values (as if the URI did not name the key: reads and retention take every region, a write of such an
instance is refused naming the key). It needs a dated key beside it, and a name that is no date variable in other
letters.

Anti-pattern:

    table: {uri: "catalog:web.clicks#ds=${DATE}"}

Best practice:

    table: {uri: "catalog:web:clicks#ds=${YEAR}-${MONTH}-${DAY}"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import catalog, where, written_tables
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


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
