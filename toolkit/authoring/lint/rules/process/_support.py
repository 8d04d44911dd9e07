"""What several process rules share: field names as messages write them, grids and evaluations that
give None instead of raising (another rule reports why), and where a feed is a catalog table.

Nothing here walks instances: grids are closed-form, and a window is judged by the grid indexes of
its two ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from toolkit.authoring.lint.context import LintContext
from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import Expression
from toolkit.core.el.functions import TIME
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.document import FieldPath, format_path
from toolkit.core.entities.model import Feed, Process, ProcessSla, Validity
from toolkit.core.instances.grids import feed_grid_for_processes, process_grid
from toolkit.errors import UsageError

EXAMPLES = "now(0,0), today(0,0) or yesterday(23,0)"


def where(path: FieldPath) -> str:
    """`("inputs", 0, "start")` -> `inputs[0].start`, as messages name a field."""
    return format_path(path)


def ts(value: datetime) -> str:
    return format_timestamp(value)


def time_expression(ctx: LintContext, text: str | None) -> Expression | None:
    """The parsed expression when it is valid and gives a time (PR005 reports the others); None for a batch
    consumer's input or output, which has no expression."""
    if text is None:
        return None
    parsed = ctx.expression(text)
    if isinstance(parsed, UsageError) or parsed.type != TIME:
        return None
    return parsed


def fixed_expression(ctx: LintContext, text: str | None) -> Expression | None:
    """A valid time expression that does not depend on which instances are available (no latest/future)."""
    parsed = time_expression(ctx, text)
    return None if parsed is None or parsed.needs_available else parsed


def grid_of_process(process: Process, cluster: str) -> InstanceGrid | None:
    """The process's grid on `cluster`; None when its zone is invalid (PR016) or it has no instance (PR002)."""
    try:
        grid = process_grid(process, cluster)
    except UsageError:
        return None
    return grid if grid.last_index is not None and grid.last_index >= 0 else None


def grid_of_feed(feed: Feed, cluster: str) -> InstanceGrid | None:
    """The feed's grid on `cluster`; None when it is not there (PR003), or its zone or validity is invalid
    (feed rules report those)."""
    if feed.cluster(cluster) is None:
        return None
    try:
        grid = feed_grid_for_processes(feed, cluster)
    except UsageError:
        return None
    return grid if grid.last_index is not None and grid.last_index >= 0 else None


@dataclass(frozen=True)
class FeedThere:
    """A process's input or output feed on one of the process's clusters, with the feed's grid there (one that
    grid_of_feed gave: bounded, the feed on that cluster)."""

    feed: Feed
    cluster: str
    grid: InstanceGrid

    @property
    def validity(self) -> Validity:
        return feed_validity(self.feed, self.cluster)


def bounded_last_index(grid: InstanceGrid) -> int:
    """The last instance's index of a grid that grid_of_process or grid_of_feed gave, which are bounded."""
    last = grid.last_index
    assert last is not None, "grid_of_process and grid_of_feed give bounded grids only"
    return last


def feed_validity(feed: Feed, cluster: str) -> Validity:
    """The feed's validity on a cluster that grid_of_feed gave a grid for (so the feed is on it)."""
    feed_cluster = feed.cluster(cluster)
    assert feed_cluster is not None, "grid_of_feed gives a grid only for a cluster the feed is on"
    return feed_cluster.validity


def evaluate(expression: Expression, nominal: datetime, grid: InstanceGrid) -> datetime | None:
    """The time an input or output expression gives for a process instance, in the feed's zone (as
    `toolkit.core.el.resolution` evaluates it, before snapping); None when it cannot be computed."""
    try:
        return expression.evaluate_time(ELContext(nominal=nominal, zone=grid.zone, grid=grid))
    except UsageError:
        return None


def feed_clusters_for(process: Process, feed: Feed) -> Iterator[str]:
    """The clusters where the process uses the feed; when they share none (PR003), the feed's own."""
    shared = [cluster.name for cluster in process.clusters if feed.cluster(cluster.name) is not None]
    yield from dict.fromkeys(shared or feed.cluster_names)


def table_on(process: Process, feed: Feed) -> tuple[str, str] | None:
    """(cluster, table URI) of the first cluster where the process uses the feed as a catalog table;
    None when it is a file feed there."""
    for cluster in feed_clusters_for(process, feed):
        table = feed.table_on(cluster)
        if table is not None:
            return cluster, table
    return None


def sla_blocks(process: Process) -> Iterator[tuple[FieldPath, ProcessSla]]:
    """The process's SLA and each cluster's, with their YAML paths (`("sla",)`, `("clusters", 0, "sla")`)."""
    if process.sla is not None:
        yield ("sla",), process.sla
    for index, cluster in enumerate(process.clusters):
        if cluster.sla is not None:
            yield ("clusters", index, "sla"), cluster.sla
