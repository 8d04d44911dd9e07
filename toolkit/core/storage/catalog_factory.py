"""Which catalog a cluster has: its remote Thrift metastore, or the Spark session's own. Kept apart from the
interface (catalog.py), so that the interface never imports its implementations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.core.storage.catalog import Catalog

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def catalog_for(spark: SparkSession, registry_uri: str | None = None, *, connect_timeout: float = 20.0,
                read_timeout: float | None = None) -> Catalog:
    """The catalog of a cluster: the remote Thrift metastore at `registry_uri` (the cluster's `registry`
    interface), or, when None, the session's own catalog.

    `connect_timeout` bounds the wait for a metastore that does not accept connections; `read_timeout` (seconds,
    default: the session's `hive.metastore.client.socket.timeout`, else 600) bounds each call to one that accepts
    but does not answer."""
    if not registry_uri:
        from toolkit.core.storage.catalog_spark import SparkCatalog

        return SparkCatalog(spark)
    from toolkit.core.storage.catalog_thrift import ThriftCatalog

    return ThriftCatalog(spark, registry_uri, connect_timeout=connect_timeout, read_timeout=read_timeout)
