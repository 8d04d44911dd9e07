"""What process.py and late_check.py open on a cluster: the Spark session (with Hive support when the process
reads or writes a table, or its engine asks for it; in the process's YARN queue and priority), its file system, and the
cluster's catalog, opened on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.entities.launcher_settings import launcher_confs
from toolkit.entities.model import Cluster, Process
from toolkit.entities.repo import ConfigRepo
from toolkit.workflow_engines.registry import engine_of

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.storage.catalog import Catalog
    from toolkit.storage.hadoop import HadoopFileSystem


def needs_hive(repo: ConfigRepo, process: Process, cluster: Cluster) -> bool:
    return engine_of(process).hive or any(
        repo.feed(item.feed).table_on(cluster.name) is not None for item in (*process.inputs, *process.outputs))


class ClusterSession:
    def __init__(self, repo: ConfigRepo, process: Process, cluster: Cluster, action: str) -> None:
        from toolkit.runtime.session import build_session
        from toolkit.storage.hadoop import HadoopFileSystem

        self.cluster = cluster
        self.spark: SparkSession = build_session(f"toolkit-{action}-{process.name}-{cluster.name}", cluster,
                                                 hive=needs_hive(repo, process, cluster),
                                                 launcher=launcher_confs(process))
        self.fs: HadoopFileSystem = HadoopFileSystem(self.spark)
        if cluster.write_endpoint is not None:
            self.fs.protect(cluster.write_endpoint)  # outputs are replaced by deletes: never the cluster's root
        self._catalog: Catalog | None = None

    def catalog(self) -> Catalog:
        """The cluster's catalog (its `registry` metastore, else Spark's), connected when first asked for."""
        if self._catalog is None:
            from toolkit.storage.catalog_factory import catalog_for

            self._catalog = catalog_for(self.spark, self.cluster.registry_endpoint)
        return self._catalog

    def __enter__(self) -> ClusterSession:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._catalog is not None:
            self._catalog.close()
