"""The Spark side of an entrypoint that acts on one feed on one cluster (ingest, compaction, publish), shared so
that the three check the same things before the JVM starts and close the metastore client the same way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from toolkit.entities.launcher_settings import launcher_confs
from toolkit.entities.object_stores import require_no_object_store
from toolkit.instances.grids import require_on_cluster
from toolkit.runtime.session import build_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.entities.model import Cluster, Feed
    from toolkit.storage.catalog import Catalog
    from toolkit.storage.filesystem import FileSystem


class FeedSession:
    """The cluster's session (with Hive support when the feed is a table there), its file system, and its
    catalog, opened on first use: a file feed never connects to a metastore."""

    def __init__(self, spark: SparkSession, fs: FileSystem, is_table: bool, registry: str | None) -> None:
        self.spark, self.fs, self.is_table, self._registry = spark, fs, is_table, registry
        self._catalog: Catalog | None = None

    def catalog(self) -> Catalog:
        if self._catalog is None:
            from toolkit.storage.catalog_factory import catalog_for

            self._catalog = catalog_for(self.spark, self._registry)
        return self._catalog

    def close(self) -> None:
        if self._catalog is not None:
            self._catalog.close()


@contextmanager
def feed_session(app: str, feed: Feed, cluster: Cluster, status: dict[str, object]) -> Iterator[FeedSession]:
    """Refuse a feed not on the cluster or a cluster on an object store (exit 2) before Spark starts, name the
    cluster in the status, then the session `toolkit-<app>-<feed>-<cluster>`; the catalog is closed at the end."""
    from toolkit.storage.hadoop import HadoopFileSystem

    require_on_cluster(feed, cluster.name)  # a bad call costs no JVM
    require_no_object_store(cluster)
    status["cluster"] = cluster.name
    is_table = feed.table_on(cluster.name) is not None
    spark = build_session(f"toolkit-{app}-{feed.name}-{cluster.name}", cluster, hive=is_table,
                          launcher=launcher_confs(feed))
    session = FeedSession(spark, HadoopFileSystem(spark), is_table, cluster.registry_endpoint)
    try:
        yield session
    finally:
        session.close()
