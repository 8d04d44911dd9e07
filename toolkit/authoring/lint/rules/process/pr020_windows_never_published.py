"""PR020: a data-triggered process's input windows name instances its producers publish.

Why:
A process with a frequency and `trigger: data` starts instance T when every required instance of its windows has
been published. When the producers on the cluster never publish some of those instances (the consumer reads minute
30 of a half-hourly feed that its only producer writes on the hour, or every hour of a feed written every two
hours), that instance never gets its event and the run never starts, silently (Airflow's partitioned assets fail
the same way). Judged where processes of the repo output the feed (not on a `type: target` cluster, which gets
what replication brings; `toolkit publish` of other instances by hand is not counted on), for windows and outputs
that do not depend on what is available (no latest(), no future()): over one common period of the frequencies,
each needed instance is compared with what the producers' outputs give for their instances around it.

Anti-pattern: clicks-half-hourly is a minutes(30) feed; its producer writes `now(0,0)` every hour.

    frequency: hours(1)
    trigger: data
    inputs: [{name: clicks, feed: clicks-half-hourly, start: "now(0,30)", end: "now(0,30)"}]

Best practice:

    frequency: hours(1)
    trigger: data
    inputs: [{name: clicks, feed: clicks-half-hourly, start: "now(0,0)", end: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import islice
from math import lcm

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import evaluate, fixed_expression, grid_of_feed, grid_of_process, ts
from toolkit.core.el.expressions import Expression
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.resolution import resolve_instance, resolve_window
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed, FeedClusterType, Process
from toolkit.errors import UsageError

_MOST_RUNS = 500  # consumer instances sampled: one common period of the frequencies, at most this many
_MOST_PUBLICATIONS = 50_000  # producer instances evaluated per input and cluster; beyond, the input is not judged
# How far the instant an output expression gives can move from its instance's, beyond the offset seen at one
# instance (a today() output moves up to a day, a lastMonth() one a month), keyed by the expression's functions.
_DRIFT = ((frozenset({"now"}), timedelta(0)), (frozenset({"now", "today", "yesterday"}), timedelta(days=2)),
          (frozenset({"now", "today", "yesterday", "currentWeek", "lastWeek"}), timedelta(days=15)),
          (frozenset({"now", "today", "yesterday", "currentWeek", "lastWeek", "currentMonth", "lastMonth"}),
           timedelta(days=63)))
_LONGEST_DRIFT = timedelta(days=400)


@register
class WindowsNeverPublished(EntityRule[Process]):
    code = "PR020"
    summary = "A data-triggered process's input windows name instances that its producers publish."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if not entity.is_instance_consumer:
            return
        for index, item in enumerate(entity.inputs):
            feed = ctx.repo.feeds.get(item.feed)
            window = item.window
            if feed is None or item.optional or window is None:
                continue
            start, end = fixed_expression(ctx, window[0]), fixed_expression(ctx, window[1])
            if start is None or end is None:
                continue
            for cluster in dict.fromkeys(c.name for c in entity.clusters):
                missing = _never_published(entity, feed, cluster, (start, end), ctx)
                if missing is not None:
                    run, needed, producers, nearest = missing
                    published = f"the nearest they publish is {ts(nearest)}" if nearest else "they publish none"
                    yield Finding(
                        entity,
                        f"inputs[{index}] {window[0]!r}..{window[1]!r} needs instance {ts(needed)} of feed "
                        f"'{feed.name}' for the run at {ts(run)} on cluster '{cluster}', but its producers there "
                        f"({', '.join(producers)}) never publish it ({published}): with trigger on data that run "
                        "never starts; make the window name instances they publish, or their outputs the "
                        "instances it needs.",
                        ("inputs", index, "start"),
                    )
                    break


def _never_published(consumer: Process, feed: Feed, cluster: str, window: tuple[Expression, Expression],
                     ctx: LintContext) -> tuple[datetime, datetime, list[str], datetime | None] | None:
    """(run, needed instance, producers, nearest published) for the first needed instance no producer publishes."""
    feed_cluster = feed.cluster(cluster)
    if feed_cluster is None or feed_cluster.type is FeedClusterType.TARGET:  # a target gets what replication brings
        return None
    process_grid, feed_grid = grid_of_process(consumer, cluster), grid_of_feed(feed, cluster)
    producers = _producers(feed, cluster, ctx)
    if process_grid is None or feed_grid is None or not producers:
        return None
    minutes = [grid.frequency.approx_minutes() for grid in (process_grid, feed_grid)]
    minutes += [grid.frequency.approx_minutes() for _, grid, _ in producers]
    period = lcm(*minutes)
    # Far enough from every start that the windows and the producers' outputs reach no time before it.
    expressions = [*window, *(output for _, _, outputs in producers for output in outputs)]
    reach = max(abs(_offset(expression, process_grid.start, feed_grid)) for expression in expressions)
    margin = 2 * (reach + max(_drift(expression) for expression in expressions)) + timedelta(minutes=period)
    first = process_grid.at_or_after(max([process_grid.start, *(grid.start for _, grid, _ in producers)]) + margin)
    if first is None:
        return None
    runs = min(period // minutes[0] + 1, _MOST_RUNS)
    first_index = process_grid.floor_index(first)
    last_index = process_grid.last_index
    stop = first_index + runs if last_index is None else min(first_index + runs, last_index + 1)
    try:
        needs = [(run, t) for run in (process_grid.time_of(k) for k in range(first_index, stop))
                 for t in resolve_window(window[0], window[1], run, feed_grid)]
    except UsageError:  # PR005 and PR007 report a window that cannot be computed
        return None
    if not needs:
        return None
    lowest, highest = min(t for _, t in needs), max(t for _, t in needs)
    published: set[datetime] = set()
    for _, grid, outputs in producers:
        found = _published(grid, outputs, feed_grid, lowest, highest)
        if found is None:
            return None
        published |= found
    for run, needed in needs:
        if needed not in published:
            nearest = min(published, key=lambda t: abs(t - needed), default=None)
            return run, needed, [process.name for process, _, _ in producers], nearest
    return None


def _producers(feed: Feed, cluster: str,
               ctx: LintContext) -> list[tuple[Process, InstanceGrid, list[Expression]]] | None:
    """The processes that output the feed on the cluster, with their grids and output expressions; None when one
    cannot be judged (an output that depends on what is available, or no grid)."""
    found = []
    for writer in ctx.writers.get(feed.name, ()):
        if writer.cluster(cluster) is None or writer.frequency is None:
            continue  # a batch consumer's output instance comes from its batch: its instances are not known here
        grid = grid_of_process(writer, cluster)
        outputs = [fixed_expression(ctx, output.instance) for output in writer.outputs if output.feed == feed.name]
        if grid is None or any(output is None for output in outputs):
            return None
        found.append((writer, grid, [output for output in outputs if output is not None]))
    return found


def _published(grid: InstanceGrid, outputs: list[Expression], feed_grid: InstanceGrid, lowest: datetime,
               highest: datetime) -> set[datetime] | None:
    """The feed instances the producer publishes in [lowest, highest], from its instances that can give them;
    None when those reach outside its validity (unknown there) or are too many."""
    published: set[datetime] = set()
    for output in outputs:
        probe = grid.at_or_after(lowest)
        value = None if probe is None else evaluate(output, probe, feed_grid)
        if probe is None or value is None:
            return None
        offset = value - probe
        drift = _drift(output) + timedelta(minutes=feed_grid.frequency.approx_minutes())
        first, last = lowest - offset - drift, highest - offset + drift
        last_index = grid.last_index
        if first < grid.start or (last_index is not None and last > grid.time_of(last_index)):
            return None
        times = list(islice(grid.between(first, last), _MOST_PUBLICATIONS + 1))
        if len(times) > _MOST_PUBLICATIONS:
            return None
        try:
            published.update(instance for t in times if (instance := resolve_instance(output, t, feed_grid)))
        except UsageError:  # an expression that cannot be computed here: PR005 and PR017 report it
            return None
    return published


def _offset(expression: Expression, nominal: datetime, feed_grid: InstanceGrid) -> timedelta:
    """How far the instant the expression gives at `nominal` is from it (zero when it cannot be computed)."""
    value = evaluate(expression, nominal, feed_grid)
    return timedelta(0) if value is None else value - nominal


def _drift(expression: Expression) -> timedelta:
    """How much more than its offset at one instance the expression's instant can move at another."""
    return next((drift for functions, drift in _DRIFT if expression.functions <= functions), _LONGEST_DRIFT)
