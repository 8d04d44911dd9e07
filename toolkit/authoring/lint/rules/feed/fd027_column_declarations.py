"""FD027: the feed's `columns` have unique names (case-insensitive, as Spark) and types this toolkit reads.

Why:
Spark resolves column names case-insensitively, so `User` and `user` are one column and the second would fail
the write. Ingest converts each record field to its column's type: the type must be an atomic Spark SQL type the
toolkit reads without Spark (string, varchar(n), char(n), boolean, tinyint, smallint, int, bigint, float, double,
decimal(p,s), date, timestamp, timestamp_ntz, binary, and Spark's synonyms such as long or integer). A complex type
(array, map, struct) is refused on a feed with `ingest`, since no record field fills it; without `ingest` it is
left to Spark.

Anti-pattern:

    columns:
      - {name: user, type: text}
      - {name: User, type: string}

Best practice:

    columns:
      - {name: user, type: string}
      - {name: user_agent, type: string}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.column_types import is_complex_type, parse_column_type
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.errors import UsageError


@register
class ColumnDeclarations(EntityRule[Feed]):
    code = "FD027"
    summary = "The feed's `columns` have unique names (case-insensitive, as Spark) and types this toolkit reads."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        first: dict[str, int] = {}
        for index, column in enumerate(entity.columns):
            earlier = first.setdefault(column.name.lower(), index)
            if earlier != index:
                yield Finding(entity, f"columns[{index}].name '{column.name}' is the name of columns[{earlier}] "
                              f"('{entity.columns[earlier].name}'; Spark's names ignore case): rename one of them.",
                              ("columns", index, "name"))
            if entity.ingest is None and is_complex_type(column.type):
                continue
            try:
                parse_column_type(column.type)
            except UsageError as err:
                yield Finding(entity, f"columns[{index}] '{column.name}': {err}", ("columns", index, "type"))
