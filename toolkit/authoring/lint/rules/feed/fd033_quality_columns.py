"""FD033: the expectations of the feed's quality suite name only columns that the feed declares.

Why:
An expectation on a column the data does not have cannot hold: Great Expectations fails it at run time, so every
instance would be blocked (or warned about) for a typo in the suite. Where a file feed declares its `columns`, the
linter knows the data's columns and checks each column an expectation names (`column`, `column_A`, `column_B`,
`column_list`, `column_set`), ignoring case as Spark does. A feed without `columns`, or stored in a catalog table
(whose columns are the table's), is not checked.

Anti-pattern: the suite names a column the feed does not declare.

    # quality/clicks.json: {"name": "clicks", "expectations": [
    #   {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "usr"}}]}
    columns:
      - {name: user, type: string}
    quality:
      suite: quality/clicks.json

Best practice: the suite names the column as the feed declares it.

    # quality/clicks.json: {"name": "clicks", "expectations": [
    #   {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "user"}}]}
    columns:
      - {name: user, type: string}
    quality:
      suite: quality/clicks.json
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._quality import unknown_columns
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class QualityColumns(EntityRule[Feed]):
    code = "FD033"
    summary = "The expectations of the feed's quality suite name only columns that the feed declares."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if entity.quality is None:
            return
        for message in unknown_columns(ctx, entity.quality, entity, "quality.suite"):
            yield Finding(entity, message, ("quality", "suite"))
