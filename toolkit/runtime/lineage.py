"""The lineage of an entrypoint call (toolkit/openlineage/), with the parent run a scheduler passed to
spark-submit as `spark.openlineage.parent*` properties (Airflow's OpenLineage provider does)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.entities.model import Cluster
from toolkit.openlineage.parent import parent_from_conf
from toolkit.openlineage.run import Lineage
from toolkit.storage.filesystem import FileSystem

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def open_lineage(fs: FileSystem, cluster: Cluster, run_id: str, spark: SparkSession | None) -> Lineage:
    conf = {}
    if spark is not None:
        conf = {key: value for key, value in spark.sparkContext.getConf().getAll()
                if key.startswith("spark.openlineage.")}
    return Lineage.open(fs, cluster, run_id, parent_from_conf(conf))
