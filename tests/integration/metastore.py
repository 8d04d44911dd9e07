"""Real Hive metastore servers for the integration tests (toolkit/devtools/local_metastore.py starts them as
docs/architecture.md says), and `RawMetastore`: Hive's own client in the Spark JVM, used by tests to build tables and to
check what the toolkit did without going through the toolkit's catalog. The fixtures at the end are imported
by conftest.py: `metastore_factory` (one server per call, all stopped at the end of the session) and
`thrift_metastore` (one shared server).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.integration.tiers import starting_a_server
from tests.jvm_options import SHORT_LIVED
from toolkit.devtools import local_metastore

__all__ = ["MetastoreServer", "RawMetastore", "metastore_factory", "thrift_metastore"]


class MetastoreServer(local_metastore.MetastoreServer):
    """A server of the test session, with Hive's raw client at hand."""

    def client(self, spark: Any) -> RawMetastore:
        return RawMetastore(spark, self.uri)


class RawMetastore:
    """Hive's metastore client in the Spark JVM, for building fixtures and checking results independently of
    the toolkit's catalog code."""

    PARQUET = ("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
               "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
               "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")

    def __init__(self, spark: Any, uri: str) -> None:
        jvm = spark._jvm
        self._jvm = jvm
        self.api = jvm.org.apache.hadoop.hive.metastore.api
        hive_conf = jvm.org.apache.hadoop.hive.conf.HiveConf
        conf = hive_conf(spark._jsc.hadoopConfiguration(), hive_conf._java_lang_class)
        conf.set("hive.metastore.uris", uri)
        self.client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)

    def _list(self, items: list[Any]) -> Any:
        java_list = self._jvm.java.util.ArrayList()
        for item in items:
            java_list.add(item)
        return java_list

    def _map(self, items: dict[str, str]) -> Any:
        java_map = self._jvm.java.util.HashMap()
        for key, value in items.items():
            java_map.put(key, value)
        return java_map

    def create_database(self, name: str, location: str) -> None:
        self.client.createDatabase(self.api.Database(name, "", location, self._map({})))

    def create_table(self, database: str, table: str, columns: list[tuple[str, str]], partition_keys: list[str],
                     location: str | None = None, external: bool = False) -> None:
        """A Hive parquet table, as Hive's DDL would make it (EXTERNAL marked by type and property)."""
        input_format, output_format, serde = self.PARQUET
        serde_info = self.api.SerDeInfo()
        serde_info.setSerializationLib(serde)
        serde_info.setParameters(self._map({"serialization.format": "1"}))
        sd = self.api.StorageDescriptor()
        sd.setCols(self._list([self.api.FieldSchema(name, kind, None) for name, kind in columns]))
        sd.setLocation(location)
        sd.setInputFormat(input_format)
        sd.setOutputFormat(output_format)
        sd.setSerdeInfo(serde_info)
        sd.setParameters(self._map({}))
        created = self.api.Table()
        created.setDbName(database)
        created.setTableName(table)
        created.setOwner("test")
        created.setSd(sd)
        created.setPartitionKeys(self._list([self.api.FieldSchema(key, "string", None) for key in partition_keys]))
        created.setTableType("EXTERNAL_TABLE" if external else "MANAGED_TABLE")
        created.setParameters(self._map({"EXTERNAL": "TRUE"} if external else {}))
        self.client.createTable(created)

    def add_partition(self, database: str, table: str, values: list[str], location: str | None = None) -> None:
        source = self.client.getTable(database, table)
        partition = self.api.Partition()
        partition.setDbName(database)
        partition.setTableName(table)
        partition.setValues(self._list(values))
        sd = self.api.StorageDescriptor(source.getSd())
        sd.setLocation(location)
        partition.setSd(sd)
        partition.setParameters(self._map({}))
        self.client.add_partition(partition)

    def partition_names(self, database: str, table: str) -> list[str]:
        return sorted(str(name) for name in self.client.listPartitionNames(database, table, -1))

    def table(self, database: str, table: str) -> Any:
        return self.client.getTable(database, table)

    def close(self) -> None:
        self.client.close()


# -- fixtures (conftest.py imports them) --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def metastore_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], MetastoreServer]]:
    """Start a metastore server per call (`metastore_factory("backup")`); all stop at the end of the session."""
    servers: list[MetastoreServer] = []

    def start(name: str = "metastore") -> MetastoreServer:
        with starting_a_server():  # the run's server, stopped at its end: not the asking test's JVM (tiers.py)
            # the tests' JVM options: a server starts on about half the CPU (11.7 s against 6.3 on this machine)
            server = MetastoreServer.start(tmp_path_factory.mktemp(name), java_options=SHORT_LIVED.split())
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def thrift_metastore(metastore_factory: Callable[[str], MetastoreServer]) -> MetastoreServer:
    """One Thrift metastore server shared by the session's tests."""
    return metastore_factory("metastore")
