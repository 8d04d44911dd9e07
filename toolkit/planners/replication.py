"""Which instance a replication run pulls, from which sources, into which part of the target, and until
when an unavailable source is waited for. Pure: the nominal time and "now" are passed in.

- The instance for nominal time T is the target grid's instance at or before T minus the target's `delay`
  (Falcon: an hours(2) feed with a 1-hour delay copies the 08:00 instance at 09:00).
- Only instances inside both the source's and the target's validity are replicated.
- Each source's `partition` expression (`${cluster.name}`, `${cluster.colo}`, `${cluster.<property>}` of
  the source cluster) names the folder (or the static partition values) under the target instance that its
  data goes into, so that several sources never collide.
- The feed's replication properties (`timeout`, `parallel`, `maxMaps`, `preservePermission`) are read by
  `toolkit/core/entities/replication_settings.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.shift import shift
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Feed, FeedCluster, FeedClusterType
from toolkit.core.entities.replication_settings import ReplicationSettings
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.errors import UsageError

_VARIABLE = re.compile(r"\$\{\s*([^}]*?)\s*\}")


@dataclass(frozen=True)
class Source:
    """A source cluster of the feed and the evaluated partition its data goes into on the target ('' for none)."""

    cluster: Cluster
    on_cluster: FeedCluster
    partition: str


def target_of(repo: ConfigRepo, feed: Feed, target: str) -> tuple[Cluster, FeedCluster]:
    cluster = repo.cluster(target)
    on_cluster = require_on_cluster(feed, cluster.name)
    if on_cluster.type is not FeedClusterType.TARGET:
        targets = [c.name for c in feed.clusters if c.type is FeedClusterType.TARGET] or ["none"]
        raise UsageError(f"Cluster '{target}' is not a target of feed '{feed.name}' (its type there is "
                         f"{on_cluster.type.value if on_cluster.type else 'unset'}): replication pulls into a "
                         f"cluster with `type: target`; the feed's targets are {', '.join(targets)}.")
    return cluster, on_cluster


def sources_of(repo: ConfigRepo, feed: Feed, requested: str | None = None) -> list[Source]:
    """The feed's sources (all of them, or the one asked for), with their partitions evaluated."""
    declared = [c for c in feed.clusters if c.type is FeedClusterType.SOURCE]
    if not declared:
        raise UsageError(f"Feed '{feed.name}' has no source cluster: mark the cluster it is written on with "
                         "`type: source` to replicate from it.")
    if requested is not None:
        chosen = [c for c in declared if c.name == requested]
        if not chosen:
            raise UsageError(f"Cluster '{requested}' is not a source of feed '{feed.name}': its sources are "
                             f"{', '.join(c.name for c in declared)}.")
        declared = chosen
    several = len([c for c in feed.clusters if c.type is FeedClusterType.SOURCE]) > 1
    sources = []
    for on_cluster in declared:
        cluster = repo.cluster(on_cluster.name)
        partition = evaluate_partition(on_cluster.partition, cluster, feed.name) if on_cluster.partition else ""
        if several and not partition:
            raise UsageError(f"Feed '{feed.name}' has several sources but source '{cluster.name}' has no "
                             "`partition` expression: give each source one (e.g. ${cluster.colo}) so their data "
                             "stay apart on the target.")
        sources.append(Source(cluster, on_cluster, partition))
    return sources


def evaluate_partition(expression: str, cluster: Cluster, feed: str) -> str:
    """`${cluster.colo}/x` -> `eu/x` on a cluster of colo eu; an expression that does not resolve is an error."""
    fields = {"name": cluster.name, **({"colo": cluster.colo} if cluster.colo else {}), **cluster.properties}

    def value(match: re.Match[str]) -> str:
        inner = match.group(1)
        name = inner.removeprefix("cluster.") if inner.startswith("cluster.") else None
        if name is None or name not in fields:
            raise UsageError(f"The partition {expression!r} of feed '{feed}' on cluster '{cluster.name}' uses "
                             f"${{{inner}}}, which does not resolve there; use ${{cluster.name}}, ${{cluster.colo}} "
                             "or ${cluster.<property>}.")
        return str(fields[name])

    evaluated = _VARIABLE.sub(value, expression).strip("/")
    if any(part in ("", ".", "..") for part in evaluated.split("/")) or evaluated.startswith("."):
        raise UsageError(f"The partition {expression!r} of feed '{feed}' evaluates to {evaluated!r} on cluster "
                         f"'{cluster.name}', which is not a relative folder name; give it a plain name.")
    return evaluated


def instance_for(feed: Feed, target: FeedCluster, nominal: datetime) -> datetime | None:
    """The target grid's instance at or before `nominal` minus the target's delay (None before the first)."""
    zone = resolve_zone(feed.timezone)
    wanted = shift(nominal, target.delay, zone, -1) if target.delay else nominal
    grid = InstanceGrid(target.validity.start, feed.frequency, zone, None)
    k = grid.floor_index(wanted)
    return grid.time_of(k) if k >= 0 else None


def outside_validity(feed: Feed, instance: datetime | None, nominal: datetime, target: FeedCluster,
                     source: FeedCluster) -> str | None:
    """Why the instance is not replicated from `source` (a sentence), or None when it is in both validities."""
    if instance is None:
        return (f"{format_timestamp(nominal)} is before the first instance of feed '{feed.name}' on cluster "
                f"'{target.name}' ({format_timestamp(target.validity.start)})")
    for on_cluster in (source, target):
        validity = on_cluster.validity
        if not validity.start <= instance < validity.end:
            return (f"the instance {format_timestamp(instance)} of feed '{feed.name}' is outside its validity on "
                    f"cluster '{on_cluster.name}' ({format_timestamp(validity.start)} to "
                    f"{format_timestamp(validity.end)})")
    return None


def instances_between(feed: Feed, target: FeedCluster, first: datetime, last: datetime) -> list[datetime]:
    """The target grid's instances in [first, last] (a catch-up window), oldest first."""
    zone = resolve_zone(feed.timezone)
    grid = InstanceGrid(target.validity.start, feed.frequency, zone, target.validity.end)
    return list(grid.between(first, last))


def deadline(feed: Feed, instance: datetime, settings: ReplicationSettings) -> datetime:
    """Until this instant an unavailable source instance is waited for (exit 3); after it, the run fails."""
    zone: ZoneInfo = resolve_zone(feed.timezone)
    return shift(instance, settings.timeout, zone, +1)
