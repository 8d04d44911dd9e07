"""Real Hive metastore servers for the integration tests, started as DESIGN.md says: the Thrift metastore from
the jars pyspark ships, with a Derby database and a warehouse under a temporary folder, on a free port (clients
use 127.0.0.1; Hive 2.3's server has no bind-address setting, so it listens on every interface).

`MetastoreServer.start(folder)` returns once the port answers; `stop()` ends it. `RawMetastore` is Hive's own
client in the Spark JVM, used by tests to build tables and to check what the toolkit did without going through
the toolkit's catalog. The fixtures at the end are imported by conftest.py: `metastore_factory` (one server
per call, all stopped at the end of the session) and `thrift_metastore` (one shared server).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspark
import pytest

SPARK_HOME = Path(pyspark.__file__).parent

_HIVE_SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName={db};create=true</value></property>
  <property><name>datanucleus.schema.autoCreateAll</name><value>true</value></property>
  <property><name>hive.metastore.schema.verification</name><value>false</value></property>
  <property><name>hive.metastore.warehouse.dir</name><value>{warehouse}</value></property>
  <property><name>hive.async.log.enabled</name><value>false</value></property>
</configuration>
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise RuntimeError("No java on PATH (and no JAVA_HOME): the metastore server needs Java 17.")
    return found


@dataclass
class MetastoreServer:
    """One running Thrift metastore: its folder, port and process."""

    folder: Path
    port: int
    process: subprocess.Popen[bytes]
    started_in: float  # seconds from launch until the port answered

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    @property
    def warehouse(self) -> Path:
        return self.folder / "warehouse"

    @property
    def log(self) -> Path:
        return self.folder / "metastore.log"

    @classmethod
    def start(cls, folder: Path, timeout: float = 60.0, attempts: int = 3) -> MetastoreServer:
        """Start a server in `folder` and wait until its port answers (a new port if the first was taken)."""
        folder = Path(folder)
        conf = folder / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        (folder / "warehouse").mkdir(exist_ok=True)
        (folder / "tmp").mkdir(exist_ok=True)
        (conf / "hive-site.xml").write_text(_HIVE_SITE.format(db=folder / "derby",
                                                              warehouse=(folder / "warehouse").as_uri()))
        failure = ""
        for _ in range(attempts):
            port = free_port()
            launched = time.monotonic()
            with open(folder / "metastore.log", "ab") as log:
                process = subprocess.Popen(
                    [_java(), "-Xmx512m", f"-Djava.io.tmpdir={folder / 'tmp'}",
                     f"-Dderby.stream.error.file={folder / 'derby.log'}",
                     "-cp", f"{conf}{os.pathsep}{SPARK_HOME / 'jars' / '*'}",
                     "org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", str(port)],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
            server = cls(folder, port, process, 0.0)
            while time.monotonic() - launched < timeout:
                if process.poll() is not None:
                    failure = f"it exited with code {process.returncode}"
                    break
                if port_answers(port):
                    server.started_in = time.monotonic() - launched
                    return server
                time.sleep(0.2)
            else:
                failure = f"port {port} did not answer within {timeout:g} s"
                server.stop()
        tail = server.log.read_text(errors="replace")[-3000:] if server.log.exists() else ""
        raise RuntimeError(f"The metastore server in {folder} did not start ({failure}); its log ends:\n{tail}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)

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
        server = MetastoreServer.start(tmp_path_factory.mktemp(name))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def thrift_metastore(metastore_factory: Callable[[str], MetastoreServer]) -> MetastoreServer:
    """One Thrift metastore server shared by the session's tests."""
    return metastore_factory("metastore")
