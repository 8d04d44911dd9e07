"""The instance grid of a feed or a process on one cluster: its validity there, its frequency and zone."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import overload

from toolkit.core.el.grid import InstanceGrid, require_instance
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Feed, FeedCluster, Process, ProcessCluster
from toolkit.errors import SkippedError, UsageError

_RIGHT_AFTER = timedelta(microseconds=1)


@overload
def require_on_cluster(entity: Feed, cluster: str) -> FeedCluster: ...


@overload
def require_on_cluster(entity: Process, cluster: str) -> ProcessCluster: ...


def require_on_cluster(entity: Feed | Process, cluster: str) -> FeedCluster | ProcessCluster:
    """The entity's settings on `cluster`, or a UsageError naming the clusters it is on."""
    on_cluster = entity.cluster(cluster)
    if on_cluster is None:
        raise UsageError(
            f"The {entity.kind.value} '{entity.name}' is not defined on cluster '{cluster}': its clusters are "
            f"{', '.join(c.name for c in entity.clusters)}."
        )
    return on_cluster


@overload
def require_in_validity(entity: Feed, cluster: str, t: datetime) -> FeedCluster: ...


@overload
def require_in_validity(entity: Process, cluster: str, t: datetime) -> ProcessCluster: ...


def require_in_validity(entity: Feed | Process, cluster: str, t: datetime) -> FeedCluster | ProcessCluster:
    """The entity's settings on `cluster` when `t` is one of its instances there: every action on an instance of a
    feed or a process checks this, one way. Outside the validity the call has nothing to do (SkippedError, exit 4,
    as docs/exit-codes.md says); a time off the grid is a bad call (UsageError, exit 2, naming the nearest
    instances)."""
    on_cluster = require_on_cluster(entity, cluster)
    owner = f"{entity.kind.value} '{entity.name}' on cluster '{cluster}'"
    start, end = on_cluster.validity.start, on_cluster.validity.end
    if not start <= t < end:
        raise SkippedError(f"{format_timestamp(t)} is outside the validity of {owner} ({format_timestamp(start)} to "
                           f"{format_timestamp(end)}): it has no instance then, so there is nothing to do.")
    require_instance(_grid_on(entity, cluster), t, owner)
    return on_cluster


def _grid_on(entity: Feed | Process, cluster: str) -> InstanceGrid:
    frequency = entity.frequency if isinstance(entity, Feed) else entity.require_frequency()
    on_cluster = require_on_cluster(entity, cluster)
    return InstanceGrid(on_cluster.validity.start, frequency, resolve_zone(entity.timezone),
                        on_cluster.validity.end)


def feed_grid(feed: Feed, cluster: str) -> InstanceGrid:
    """The feed's instances on `cluster`: from its validity start there, before its validity end."""
    return _grid_on(feed, cluster)


def feed_grid_for_processes(feed: Feed, cluster: str) -> InstanceGrid:
    """The feed's instances on `cluster` as processes read and write them: through its validity end, inclusive.
    Falcon refuses an input window end or an output instance only after the feed's validity end
    (`CrossEntityValidations.validateInstanceRange`, `validateInstance`), and Oozie resolves one exactly at it;
    the feed's own actions (replication, retention's cadence) keep to `feed_grid`, which ends before it, as
    Falcon's `FeedHelper.validateFeedInstance` does. The grid's exclusive end is the instant right after the
    validity end: instances fall on whole seconds, so the end is the last instant that can be one."""
    grid = _grid_on(feed, cluster)
    return grid if grid.end is None else replace(grid, end=grid.end + _RIGHT_AFTER)


def process_grid(process: Process, cluster: str) -> InstanceGrid:
    """The process's instances on `cluster`; UsageError for a batch consumer, which has none."""
    return _grid_on(process, cluster)
