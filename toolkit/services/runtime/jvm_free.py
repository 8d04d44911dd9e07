"""Which actions run without a JVM, decided in one place for the entrypoint that runs them and for the schedules
that call them: Spark is started only where it has work (a catalog table, a file system only Hadoop's client
reaches)."""

from __future__ import annotations

from urllib.parse import urlsplit

from toolkit.core.entities.model import Cluster, Feed
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.registry import eviction_for
from toolkit.services.runtime.cluster_files import reachable_without_jvm


def retention_without_jvm(feed: Feed, cluster: Cluster) -> bool:
    """Whether retention of `feed` on `cluster` runs without Spark: a file feed, on a cluster reached without a JVM
    (toolkit/services/runtime/cluster_files.py), whose expired instances go nowhere or to an archive on that same file
    system (an archive URI elsewhere is reached through Hadoop's client). False for an action the toolkit refuses:
    the entrypoint says why."""
    if feed.table_on(cluster.name) is not None or not reachable_without_jvm(cluster):
        return False
    try:
        eviction = eviction_for(feed, cluster)
    except UsageError:
        return False
    root = cluster.write_endpoint or ""
    target = eviction.destination(f"{root.rstrip('/')}/instance") if eviction is not None else None
    return target is None or urlsplit(target)[:2] == urlsplit(root)[:2]
