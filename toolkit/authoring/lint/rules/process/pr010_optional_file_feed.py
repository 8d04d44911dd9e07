"""PR010: only an input of a file feed can be `optional`.

Why:
As in Falcon, which supports optional inputs for file storage only: a missing partition of a catalog table
cannot be skipped.

Anti-pattern: clicks-daily-table is a catalog-table feed.

    inputs: [{name: daily, feed: clicks-daily-table, start: today(0,0), end: today(0,0), optional: true}]

Best practice:

    inputs: [{name: daily, feed: clicks-daily-table, start: today(0,0), end: today(0,0)}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import table_on
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class OptionalFileFeed(EntityRule[Process]):
    code = "PR010"
    summary = "Only inputs of file feeds are optional."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            if not item.optional or feed is None:
                continue
            table = table_on(entity, feed)
            if table is not None:
                yield Finding(
                    entity,
                    f"inputs[{index}].optional true is set on feed '{feed.name}', a catalog table on cluster "
                    f"'{table[0]}' ({table[1]}); only file feeds can be optional: remove `optional` (or set it "
                    "to false).",
                    ("inputs", index, "optional"),
                )
