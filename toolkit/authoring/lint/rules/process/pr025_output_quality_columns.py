"""PR025: the expectations of each output's quality suite name only columns that the output's feed declares.

Why:
An expectation on a column the data does not have cannot hold: Great Expectations fails it at run time, after the
workflow ran, and the output is never published (or always warned about) for a typo in the suite. Where the
output's feed is stored in files and declares its `columns`, the linter checks each column an expectation names
(`column`, `column_A`, `column_B`, `column_list`, `column_set`), ignoring case as Spark does; a feed without
`columns`, or stored in a catalog table, is not checked.

Anti-pattern: feeds/clicks-hourly-summary.yaml declares the columns `page` and `clicks`.

    # quality/summary.json: {"name": "summary", "expectations": [{"type": "expect_column_values_to_be_between",
    #   "kwargs": {"column": "click_count", "min_value": 0}}]}
    outputs:
      - name: summary
        feed: clicks-hourly-summary
        instance: now(0,0)
        quality: {suite: quality/summary.json}

Best practice: the suite names the feed's column.

    # quality/summary.json: {"name": "summary", "expectations": [{"type": "expect_column_values_to_be_between",
    #   "kwargs": {"column": "clicks", "min_value": 0}}]}
    outputs:
      - name: summary
        feed: clicks-hourly-summary
        instance: now(0,0)
        quality: {suite: quality/summary.json}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._quality import unknown_columns
from toolkit.authoring.lint.rules.process._support import where
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class OutputQualityColumns(EntityRule[Process]):
    code = "PR025"
    summary = "The expectations of each output's quality suite name only columns that the output's feed declares."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, output in enumerate(entity.outputs):
            feed = ctx.repo.feeds.get(output.feed)
            if output.quality is None or feed is None:  # an unknown feed is RP004's
                continue
            path = ("outputs", index, "quality", "suite")
            for message in unknown_columns(ctx, output.quality, feed, where(path)):
                yield Finding(entity, message, path)
