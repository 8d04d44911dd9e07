"""The Spark session of an entrypoint: named after its action, with the cluster's `spark.*` properties, then
the entity's launcher settings (its YARN queue and priority: toolkit/core/entities/launcher_settings.py), Hive
support when the action works on tables (pointed at the cluster's `registry` metastore when it has one),
the toolkit's jar on `spark.jars` beside those of spark-submit's --jars and the cluster's (so that executors fetch
them all: toolkit/core/storage/jvm_classes.py), and Spark on loopback when SPARK_LOCAL_IP
says so (tests, the demo and benchmarks set it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Cluster
from toolkit.core.storage.jvm_classes import jar_path
from toolkit.services.runtime import driver_logging
from toolkit.uris import normalize_uri

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def build_session(app_name: str, cluster: Cluster, hive: bool = False, *,
                  launcher: Mapping[str, str] | None = None) -> SparkSession:
    """`launcher` (launcher_confs of the entity) is set after the cluster's properties, so the entity's queue
    wins over a cluster's spark.yarn.queue; both win over spark-submit's --conf when this call starts the
    SparkContext (client mode). A SparkContext already running keeps its settings."""
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    settings = {name: value for name, value in cluster.properties.items() if name.startswith("spark.")}
    settings.update(launcher or {})
    # Setting spark.jars replaces what spark-submit's --jars gave (those would then reach the driver only, not
    # the executors): the toolkit's jar joins them and the cluster's. A SparkConf reads spark-submit's settings
    # only once the JVM gateway is up (else it starts empty), as SparkContext itself ensures first.
    toolkit_jar = jar_path()  # a missing jar is one sentence and exit 2, before the JVM starts
    SparkContext._ensure_initialized()
    quiet_start = driver_logging.configure(SparkContext._jvm, SparkContext._gateway)
    submitted = SparkConf().get("spark.jars", None)
    settings["spark.jars"] = joined_jars(submitted, settings.get("spark.jars"), toolkit_jar)
    builder = SparkSession.builder.appName(app_name)
    if not quiet_start:
        builder = builder.config("spark.log.level", driver_logging.requested_level().upper())
    for name, value in settings.items():
        builder = builder.config(name, value)
    local_ip = os.environ.get("SPARK_LOCAL_IP")
    if local_ip:
        builder = builder.config("spark.driver.host", local_ip).config("spark.driver.bindAddress", local_ip)
    if hive:
        # A file-only action never needs the metastore, so it runs when the metastore is down.
        if cluster.registry_endpoint:
            builder = builder.config("spark.hadoop.hive.metastore.uris", cluster.registry_endpoint)
        builder = builder.enableHiveSupport()
    return builder.getOrCreate()


def joined_jars(*lists: str | None) -> str:
    """Comma-separated jar lists as one, each jar once, in order: a local path and its `file:` URI are one jar
    (spark-submit hands its --jars to the driver as `file:///...` URIs)."""
    jars = (jar.strip() for listed in lists for jar in (listed or "").split(","))
    joined: dict[str, str] = {}
    for jar in jars:
        if jar:
            joined.setdefault(normalize_uri("file://" + jar if jar.startswith("/") else jar), jar)
    return ",".join(joined.values())
