"""The session of an entrypoint that acts on one feed on one cluster (ingest, compaction, publish, quality check),
shared so that each checks the same things before the JVM starts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.instances.grids import require_on_cluster
from toolkit.services.runtime.action_session import ActionSession, action_session

if TYPE_CHECKING:
    from toolkit.core.entities.model import Cluster, Feed
    from toolkit.services.runtime.status import StatusLine


@contextmanager
def feed_session(app: str, feed: Feed, cluster: Cluster, status: StatusLine) -> Iterator[ActionSession]:
    """Refuse a feed not on the cluster or a cluster on an object store (exit 2) before Spark starts, then the
    session `toolkit-<app>-<feed>-<cluster>` (with Hive support when the feed is
    a table there)."""
    require_on_cluster(feed, cluster.name)  # a bad call costs no JVM
    require_no_object_store(cluster)
    with action_session(app, feed.name, cluster, status, hive=feed.table_on(cluster.name) is not None,
                        launcher=launcher_confs(feed)) as session:
        yield session
