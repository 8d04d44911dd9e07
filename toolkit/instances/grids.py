"""The instance grid of a feed or a process on one cluster: its validity there, its frequency and zone."""

from __future__ import annotations

from toolkit.el.grid import InstanceGrid
from toolkit.el.timezones import resolve_zone
from toolkit.entities.model import Feed, Process
from toolkit.errors import UsageError


def _not_on(kind: str, name: str, cluster: str, clusters: list[str]) -> UsageError:
    return UsageError(
        f"The {kind} '{name}' is not defined on cluster '{cluster}': its clusters are {', '.join(clusters)}."
    )


def feed_grid(feed: Feed, cluster: str) -> InstanceGrid:
    """The feed's instances on `cluster`: from its validity start there, before its validity end."""
    on_cluster = feed.cluster(cluster)
    if on_cluster is None:
        raise _not_on("feed", feed.name, cluster, [c.name for c in feed.clusters])
    return InstanceGrid(on_cluster.validity.start, feed.frequency, resolve_zone(feed.timezone),
                        on_cluster.validity.end)


def process_grid(process: Process, cluster: str) -> InstanceGrid:
    """The process's instances on `cluster`."""
    on_cluster = process.cluster(cluster)
    if on_cluster is None:
        raise _not_on("process", process.name, cluster, [c.name for c in process.clusters])
    return InstanceGrid(on_cluster.validity.start, process.frequency, resolve_zone(process.timezone),
                        on_cluster.validity.end)
