"""FD040: an import read by more than one mapper names the column that splits the table (`arguments.split-by`).

Why:
`arguments.num-mappers` (Sqoop's `--num-mappers`) reads the table in that many parallel parts; the parts are
ranges of one column, Sqoop's `--split-by`, here `arguments.split-by`. Without it the import splits by the
table's primary key (its first column), found at run time through the JDBC connection's metadata as Sqoop does,
and stops with exit 2 when the table has none: a warning, since lint cannot see the table. A `num-mappers` that is
not a whole number above 0 is an error. (Falcon refuses a feed without `split-by`: "Feed import expects
--split-by column when --num-mappers > 1".)

Anti-pattern:

    import:
      source: {name: sales-db, tableName: orders, extract: {type: full, mergepolicy: snapshot}}
      arguments: {num-mappers: 4}

Best practice:

    import:
      source: {name: sales-db, tableName: orders, extract: {type: full, mergepolicy: snapshot}}
      arguments: {num-mappers: 4, split-by: order_id}
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.core.entities.problems import Severity

_WHOLE = re.compile(r"[0-9]+")


@register
class MappersNeedSplitColumn(EntityRule[Feed]):
    code = "FD040"
    summary = "An import read by more than one mapper names the column that splits the table (arguments.split-by)."
    kind = Kind.FEED
    severity = Severity.WARNING  # lint cannot see the table's key; a num-mappers that is no number is an error

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            if cluster.import_ is None or "num-mappers" not in cluster.import_.arguments:
                continue
            mappers = cluster.import_.arguments["num-mappers"].strip()
            path = ("clusters", index, "import", "arguments", "num-mappers")
            if not _WHOLE.fullmatch(mappers) or int(mappers) == 0:
                yield Finding(entity, f"the import on cluster '{cluster.name}' has arguments.num-mappers "
                                      f"{mappers!r}, which is not a whole number above 0; give how many parallel "
                                      "parts read the table, e.g. 4.", path, severity=Severity.ERROR)
            elif int(mappers) > 1 and not cluster.import_.arguments.get("split-by", "").strip():
                yield Finding(entity, f"the import on cluster '{cluster.name}' reads the table in {mappers} parts "
                                      "(arguments.num-mappers) but names no column to split it by: it will split "
                                      "by the table's primary key, found when it runs, and stop if the table has "
                                      "none; add arguments.split-by (Sqoop's --split-by) to say which column.",
                              path)
