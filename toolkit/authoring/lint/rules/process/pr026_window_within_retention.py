"""PR026: an input window reaches no further back than the feed's retention limit on each cluster.

Why:
An instance that the window's start names longer ago than the feed's retention limit is deleted by retention
before the process reads it: the run waits for it until it times out, or reads a window with a hole. Falcon
refuses such a process on submit (`CrossEntityValidations.validateFeedRetentionPeriod`): the start, evaluated at
a nominal time, must not be before that time minus the limit. Falcon evaluates it once, at the time of submission;
here it is evaluated at the process's instances over one period of the window's calendar function (a day for
today() and yesterday(), a week, a year for the month functions, four years for the year functions; now() at the
first instance alone, at most 10,000 instances) and the farthest reach is compared. A limit in months is Falcon's
31 days a month (an error beyond it) and a warning where it passes only by that measure (a shorter month would
delete the instances first). Windows using latest() or future() depend on what is available and are left out.

Anti-pattern: clicks is kept one day on primary.

    inputs: [{name: clicks, feed: clicks, start: "now(-48,0)", end: "now(0,0)"}]

Best practice: keep the feed as long as the window reaches back (or shorten the window).

    inputs: [{name: clicks, feed: clicks, start: "now(-24,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._durations import MINUTES_PER_DAY, bounds
from toolkit.authoring.lint.rules.process._support import (
    bounded_last_index,
    evaluate,
    fixed_expression,
    grid_of_feed,
    grid_of_process,
    ts,
)
from toolkit.core.el.expressions import Expression
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.core.entities.problems import Severity

# How long the reach of a window start using these functions takes to go through all its values, in days.
_PERIOD_DAYS = {"today": 1, "yesterday": 1, "currentWeek": 7, "lastWeek": 7, "currentMonth": 366,
                "lastMonth": 366, "currentYear": 4 * 366, "lastYear": 4 * 366}
_MOST_INSTANCES = 10_000


@register
class WindowWithinRetention(EntityRule[Process]):
    code = "PR026"
    summary = ("An input window reaches no further back than the feed's retention limit on each cluster "
               "(a limit in months that only Falcon's 31-day month covers: warning).")
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            start = fixed_expression(ctx, item.start)
            if feed is None or start is None:
                continue
            for cluster in dict.fromkeys(c.name for c in entity.clusters):
                feed_cluster = feed.cluster(cluster)
                process_grid, feed_grid = grid_of_process(entity, cluster), grid_of_feed(feed, cluster)
                if feed_cluster is None or feed_cluster.retention is None or process_grid is None or \
                        feed_grid is None:
                    continue
                farthest = _farthest_reach(start, process_grid, feed_grid)
                if farthest is None:
                    continue
                minutes, nominal = farthest
                limit = feed_cluster.retention.limit
                lowest, _ = bounds(limit)
                if minutes <= lowest:
                    continue
                beyond_falcon = minutes > limit.approx_minutes()
                reach = _duration(minutes)
                how = "" if beyond_falcon else (
                    f" in the shorter months (Falcon, counting {limit} as {limit.count * 31} days, accepted it)")
                yield Finding(
                    entity,
                    f"inputs[{index}].start {item.start!r} reaches {reach} back from the process's instance "
                    f"{ts(nominal)} on cluster '{cluster}', further than the retention limit {limit} of feed "
                    f"'{feed.name}' there{how}: its retention would delete the instances before the process reads "
                    f"them{' (Falcon refuses such a process)' if beyond_falcon else ''}; keep the feed at least "
                    f"{reach} there, or start the window later.",
                    ("inputs", index, "start"),
                    severity=None if beyond_falcon else Severity.WARNING,
                )


def _farthest_reach(start: Expression, process_grid: InstanceGrid,
                    feed_grid: InstanceGrid) -> tuple[int, datetime] | None:
    """(minutes, nominal time) of the farthest the start reaches back from a process instance, over one period of
    its calendar functions; None when it cannot be evaluated (another rule says why)."""
    period = max((_PERIOD_DAYS.get(name, 0) for name in start.functions), default=0) * MINUTES_PER_DAY
    count = period // max(1, process_grid.frequency.approx_minutes()) + 2 if period else 1
    count = min(count, _MOST_INSTANCES, bounded_last_index(process_grid) + 1)
    farthest: tuple[int, datetime] | None = None
    for k in range(count):
        nominal = process_grid.time_of(k)
        first = evaluate(start, nominal, feed_grid)
        if first is None:
            return None
        minutes = int((nominal - first).total_seconds() // 60)
        if farthest is None or minutes > farthest[0]:
            farthest = (minutes, nominal)
    return farthest


def _duration(minutes: int) -> str:
    """Minutes as the coarsest frequency that spells them exactly (days(2), hours(23), minutes(90))."""
    for unit, size in ((TimeUnit.DAYS, MINUTES_PER_DAY), (TimeUnit.HOURS, 60)):
        if minutes % size == 0:
            return str(Frequency(unit, minutes // size))
    return str(Frequency(TimeUnit.MINUTES, minutes))
