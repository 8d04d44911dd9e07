"""What every entrypoint that acts on a cluster opens, built one way: the Spark session named after the action,
the cluster's file system through it with the cluster's root protected (no action deletes it, nor a folder above
it), the cluster's catalog connected on first use (a file feed never talks to a metastore) and closed at the end,
and the run's lineage and notifier on that file system."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from toolkit.runtime.session import build_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.entities.model import Cluster
    from toolkit.notifications.notifier import Notifier
    from toolkit.openlineage.run import Lineage
    from toolkit.storage.catalog import Catalog
    from toolkit.storage.hadoop import HadoopFileSystem


class ActionSession:
    """One action's Spark session on one cluster, its protected file system and its lazily connected catalog."""

    def __init__(self, spark: SparkSession, fs: HadoopFileSystem, cluster: Cluster) -> None:
        self.spark, self.fs, self.cluster = spark, fs, cluster
        self._catalog: Catalog | None = None

    def catalog(self) -> Catalog:
        """The cluster's catalog (its `registry` metastore, else Spark's), connected when first asked for."""
        if self._catalog is None:
            from toolkit.storage.catalog_factory import catalog_for

            self._catalog = catalog_for(self.spark, self.cluster.registry_endpoint)
        return self._catalog

    def lineage(self, run_id: str) -> Lineage:
        """The run's lineage, kept in this cluster's ledger, under the parent run a scheduler passed to Spark."""
        from toolkit.runtime.lineage import open_lineage

        return open_lineage(self.fs, self.cluster, run_id, self.spark)

    def notifier(self) -> Notifier:
        """The notifier of this cluster's channels, recording each notice in its ledger."""
        from toolkit.notifications.notifier import Notifier

        return Notifier(self.fs, self.cluster)

    def close(self) -> None:
        if self._catalog is not None:
            self._catalog.close()


@contextmanager
def action_session(action: str, subject: str | None, cluster: Cluster, *, hive: bool,
                   launcher: Mapping[str, str]) -> Iterator[ActionSession]:
    """The session `toolkit-<action>-<subject>-<cluster>` (with Hive support when `hive`; `launcher`: the entity's
    YARN queue and priority, toolkit/entities/launcher_settings.py), closed with its catalog at the end. Call it
    after the checks that need no JVM, so that a bad call costs none."""
    from toolkit.storage.hadoop import HadoopFileSystem

    name = "-".join(("toolkit", action, *((subject,) if subject else ()), cluster.name))
    spark = build_session(name, cluster, hive=hive, launcher=launcher)
    fs = HadoopFileSystem(spark)
    if cluster.write_endpoint is not None:
        fs.protect(cluster.write_endpoint)
    session = ActionSession(spark, fs, cluster)
    try:
        yield session
    finally:
        session.close()
