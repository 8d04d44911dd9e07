"""PR017: an output instance lies inside the feed's validity on each cluster of the process.

Why:
Evaluated at the process's first instance (an error when outside: that run has nowhere to publish) and at its
last one (a warning when only that one is outside: the late runs would have no output instance). Outside means
before the feed's first instance or after its last: the resolver never lets the last instance stand in for a
time after the feed's validity end. An instance exactly at the validity end is the last a process writes, as
Falcon accepts it (it refuses only one after the end). Closed-form, like PR007.

Anti-pattern: the feed clicks-hourly-summary is valid from 2025-12-01T00:00Z.

    clusters: [{name: primary, validity: {start: "2025-12-01T00:00Z", end: "2027-01-01T00:00Z"}}]
    outputs: [{name: summary, feed: clicks-hourly-summary, instance: "now(-1,0)"}]

Best practice:

    clusters: [{name: primary, validity: {start: "2025-12-01T00:00Z", end: "2027-01-01T00:00Z"}}]
    outputs: [{name: summary, feed: clicks-hourly-summary, instance: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import (
    FeedThere,
    bounded_last_index,
    evaluate,
    fixed_expression,
    grid_of_feed,
    grid_of_process,
    ts,
)
from toolkit.core.el.expressions import Expression
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Output, Process
from toolkit.core.entities.problems import Severity


@register
class OutputInFeedValidity(EntityRule[Process]):
    code = "PR017"
    summary = ("An output instance, at the process's first and last instance, lies inside the feed's validity "
               "(warning when only the last instance's output is outside).")
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.outputs):
            feed = ctx.repo.feeds.get(item.feed)
            expression = fixed_expression(ctx, item.instance)
            if feed is None or expression is None:
                continue
            for cluster in dict.fromkeys(c.name for c in entity.clusters):
                process_grid, feed_grid = grid_of_process(entity, cluster), grid_of_feed(feed, cluster)
                if process_grid is None or feed_grid is None:
                    continue
                there = FeedThere(feed, cluster, feed_grid)
                finding = _outside(entity, index, item, expression, there, process_grid.start, "first")
                if finding is None:
                    last = process_grid.time_of(bounded_last_index(process_grid))
                    finding = _outside(entity, index, item, expression, there, last, "last")
                    if finding is not None:
                        finding = Finding(finding.entity, finding.message, finding.path, severity=Severity.WARNING)
                if finding is not None:
                    yield finding


def _outside(entity: Process, index: int, item: Output, expression: Expression, there: FeedThere, nominal: datetime,
             which: str) -> Finding | None:
    feed, cluster, grid = there.feed, there.cluster, there.grid
    value = evaluate(expression, nominal, grid)
    if value is None:
        return None
    position = grid.floor_index(value)
    if 0 <= position <= bounded_last_index(grid):
        return None
    validity = there.validity
    side = f"before its validity starts {ts(validity.start)}" if position < 0 else \
        f"after its validity ends {ts(validity.end)}"
    return Finding(
        entity,
        f"outputs[{index}].instance {item.instance!r} gives {ts(value)} for the {which} instance {ts(nominal)} of "
        f"the process on cluster '{cluster}', {side} for feed '{feed.name}' there; the run would have no output "
        f"instance: make the feed's validity on '{cluster}' cover the process's, or change the process's validity.",
        ("outputs", index, "instance"),
    )
