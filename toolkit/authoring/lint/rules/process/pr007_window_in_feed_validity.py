"""PR007: an input window lies inside the feed's validity on each cluster of the process.

Why:
The window is evaluated at the process's first instance on the cluster (an error when it reaches outside: the
very first run reads instances that never exist) and at its last instance, the grid's last before the validity
end (a warning when only that one reaches outside: the late runs would wait for instances the feed stops
producing; Falcon accepted these). A window end lies outside when the feed instance it snaps to is after the
feed's last instance a process reads, which is an instance exactly at its validity end (Falcon refuses a window
end only after the feed's end); a start, when it is before the first. Windows using latest() or future() depend
on what is available and are left out. Closed-form: only the two end instants of each grid are computed.

Anti-pattern: the feed clicks is valid from 2025-12-01T00:00Z.

    clusters: [{name: primary, validity: {start: "2025-12-01T00:00Z", end: "2027-01-01T00:00Z"}}]
    inputs: [{name: clicks, feed: clicks, start: "now(-24,0)", end: "now(0,0)"}]

Best practice:

    clusters: [{name: primary, validity: {start: "2025-12-02T00:00Z", end: "2027-01-01T00:00Z"}}]
    inputs: [{name: clicks, feed: clicks, start: "now(-24,0)", end: "now(0,0)"}]
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
from toolkit.core.entities.model import Input, Process
from toolkit.core.entities.problems import Severity


@register
class WindowInFeedValidity(EntityRule[Process]):
    code = "PR007"
    summary = ("An input window, at the process's first and last instance, lies inside the feed's validity "
               "(warning when only the last instance's window is outside).")
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            start, end = fixed_expression(ctx, item.start), fixed_expression(ctx, item.end)
            if feed is None or start is None or end is None:
                continue
            window = (start, end)
            for cluster in dict.fromkeys(c.name for c in entity.clusters):
                process_grid, feed_grid = grid_of_process(entity, cluster), grid_of_feed(feed, cluster)
                if process_grid is None or feed_grid is None:
                    continue
                there = FeedThere(feed, cluster, feed_grid)
                findings = list(self._outside(entity, index, item, window, there, process_grid.start, "first"))
                if not findings:
                    last = process_grid.time_of(bounded_last_index(process_grid))
                    findings = [Finding(f.entity, f.message, f.path, severity=Severity.WARNING)
                                for f in self._outside(entity, index, item, window, there, last, "last")]
                yield from findings

    def _outside(self, entity: Process, index: int, item: Input, window: tuple[Expression, Expression],
                 there: FeedThere, nominal: datetime, which: str) -> Iterator[Finding]:
        feed, cluster, grid, validity = there.feed, there.cluster, there.grid, there.validity
        first, last = evaluate(window[0], nominal, grid), evaluate(window[1], nominal, grid)
        at = f"for the {which} instance {ts(nominal)} of the process on cluster '{cluster}'"
        if first is not None and grid.floor_index(first) < 0:
            yield Finding(
                entity,
                f"inputs[{index}].start {item.start!r} gives {ts(first)} {at}, before the first instance "
                f"{ts(grid.start)} of feed '{feed.name}' there (its validity starts {ts(validity.start)}); "
                + _advice(which, "start", cluster, feed.name),
                ("inputs", index, "start"),
            )
        last_index = bounded_last_index(grid)
        if last is not None and grid.floor_index(last) > last_index:
            yield Finding(
                entity,
                f"inputs[{index}].end {item.end!r} gives {ts(last)} {at}, after the last instance "
                f"{ts(grid.time_of(last_index))} of feed '{feed.name}' there (its validity ends "
                f"{ts(validity.end)}); " + _advice(which, "end", cluster, feed.name),
                ("inputs", index, "end"),
            )


def _advice(which: str, side: str, cluster: str, feed: str) -> str:
    if side == "start":
        return (f"the window must lie inside the feed's validity: start the process later on '{cluster}', "
                f"start feed '{feed}' earlier there, or shorten the window.")
    if which == "first":
        return (f"the window must lie inside the feed's validity: extend feed '{feed}' on '{cluster}', or end "
                "the window earlier.")
    return (f"the process's last runs would wait for instances feed '{feed}' never has: end the process "
            f"earlier on '{cluster}' or extend the feed's validity there.")
