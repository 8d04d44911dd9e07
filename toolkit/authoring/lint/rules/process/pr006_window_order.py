"""PR006: an input's end is not before its start.

Why:
A window runs from its start to its end: an end before the start reads nothing. Both are evaluated at the
process's first instance on each cluster, in the feed's zone (as `toolkit.core.el.resolution` does); windows using
latest() or future() depend on what is available and are left out.

Anti-pattern:

    inputs: [{name: clicks, feed: clicks, start: "now(0,0)", end: "now(-1,0)"}]

Best practice:

    inputs: [{name: clicks, feed: clicks, start: "now(-1,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import evaluate, fixed_expression, grid_of_feed, grid_of_process, ts
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class WindowOrder(EntityRule[Process]):
    code = "PR006"
    summary = "An input's end is not before its start (evaluated at the process's first instance)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            start, end = fixed_expression(ctx, item.start), fixed_expression(ctx, item.end)
            if feed is None or start is None or end is None:
                continue
            for cluster in dict.fromkeys(c.name for c in entity.clusters):
                process_grid, feed_grid = grid_of_process(entity, cluster), grid_of_feed(feed, cluster)
                if process_grid is None or feed_grid is None:
                    continue
                nominal = process_grid.start
                first, last = evaluate(start, nominal, feed_grid), evaluate(end, nominal, feed_grid)
                if first is not None and last is not None and last < first:
                    yield Finding(
                        entity,
                        f"inputs[{index}].end {item.end!r} gives {ts(last)}, before the start {item.start!r} "
                        f"({ts(first)}), for the first instance {ts(nominal)} on cluster '{cluster}' (in the "
                        f"zone {feed_grid.zone.key} of feed '{feed.name}'); a window runs from its start to its "
                        "end: give an end at or after the start (swap them?).",
                        ("inputs", index, "end"),
                    )
                    break  # one finding per input: the expressions are wrong, not a cluster
