"""A feed's instances as a cluster's storage holds them, read without a JVM (a `file://` root, or HDFS through
WebHDFS: toolkit/services/runtime/cluster_files.py) with retention's own planner
(toolkit/planners/retention/feed_plans.py), so that every part of `toolkit plan` counts the instances retention,
replication and processes see. A catalog table, or a cluster only Hadoop's client reaches, is not read: the reason is
said instead."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from urllib.parse import urlsplit

from toolkit.core.el.timezones import UTC, resolve_zone
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.core.storage.local import to_local_path
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.location_plan import ExpiredInstance
from toolkit.planners.retention.feed_plans import feed_plans
from toolkit.services.runtime.cluster_files import cluster_file_system, reachable_without_jvm
from toolkit.views.plan.changes import PlannedInstance

FOREVER = datetime(9999, 1, 1, tzinfo=UTC)  # a cut-off past every instance: all of a feed's data

InstancesByPath = dict[tuple[str, str], ExpiredInstance]  # by (location kind, path), as retention's planner found them


class FeedStorage:
    """The clusters' file systems, opened once per plan."""

    def __init__(self) -> None:
        self._systems: dict[tuple[str, str], FileSystem] = {}  # by cluster and root: a change may move the root

    def file_system(self, feed: Feed, cluster: Cluster) -> FileSystem | None:
        """The cluster's file system when it is read without a JVM and the feed is a file feed there; else None
        (`unread_reason` says why)."""
        if feed.table_on(cluster.name) is not None:
            return None
        return self.ledger_system(cluster)

    def ledger_system(self, cluster: Cluster) -> FileSystem | None:
        """The file system that holds the cluster's ledger, when it is read without a JVM from here."""
        if cluster.write_endpoint is None or not reachable_without_jvm(cluster) or _missing_root(cluster):
            return None
        key = (cluster.name, cluster.write_endpoint)
        if key not in self._systems:
            self._systems[key] = cluster_file_system(cluster)
        return self._systems[key]

    def read_apart(self, reads: Iterable[tuple[Feed, Cluster]]) -> bool:
        """Whether forked workers should read these (feed, cluster)s beside this process: some storage is read, and
        every file system read allows forks (local files, not a WebHDFS client's open connections). A file system
        that cannot be opened answers no: read alone, in order, the first feed's error is the one said."""
        try:
            systems = [self.file_system(feed, cluster) for feed, cluster in reads]
        except UsageError:
            return False
        read = [fs for fs in systems if fs is not None]
        return bool(read) and all(fs.shared_with_forks for fs in read)


def unread_reason(feed: Feed | None, cluster: Cluster) -> str:
    """Why a feed's instances (or, without a feed, the cluster's ledger) on `cluster` are not read."""
    if feed is not None and feed.table_on(cluster.name) is not None:
        return "a catalog table: its partitions are read through Spark"
    if cluster.write_endpoint is None:
        return f"cluster '{cluster.name}' has no write interface"
    if _missing_root(cluster):
        return (f"cluster '{cluster.name}''s root {cluster.write_endpoint} does not exist on this machine: plan where "
                "its storage is mounted")
    return f"cluster '{cluster.name}' is reached only through Hadoop's client (give it a WebHDFS address)"


def _missing_root(cluster: Cluster) -> bool:
    """A `file://` root that is no folder here (a CI runner without the mount): reading it would find nothing, and
    nothing found is not nothing there."""
    endpoint = cluster.write_endpoint or ""
    if urlsplit(endpoint).scheme.lower() != "file":
        return False
    try:
        return not os.path.isdir(to_local_path(endpoint))
    except StorageError:
        return True  # no local path (`file:relative`): lint names it; nothing is read


def instances_before(repo: ConfigRepo, feed: Feed, cluster: Cluster, fs: FileSystem,
                     cut_off: datetime = FOREVER) -> InstancesByPath:
    """The instances of `feed` (as `repo` defines it and its neighbours) on `cluster` before `cut_off`: what
    retention at that cut-off would evict (less what another feed shares). Their sizes are read by `sized`, for
    the instances a change names only."""
    try:
        planned = feed_plans(repo, feed, cluster, fs, resolve_zone(feed.timezone), cut_off)
    except UsageError as err:
        raise UsageError(f"Feed '{feed.name}' on cluster '{cluster.name}': {err}") from None
    return {(plan.kind, instance.path): instance for plan in planned.plans for instance in plan.expired}


def sized(fs: FileSystem, instances: Iterable[ExpiredInstance]) -> tuple[PlannedInstance, ...]:
    """The instances with their bytes on `fs` (every file under each), oldest first."""
    chosen = sorted(instances, key=lambda instance: (instance.time, instance.path))
    sizes = fs.total_sizes([instance.entry for instance in chosen])
    return tuple(PlannedInstance(instance.time, instance.path, sizes.get(instance.path, 0)) for instance in chosen)
