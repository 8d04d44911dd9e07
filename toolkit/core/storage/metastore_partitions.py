"""A table's partitions read from a remote Hive metastore (`thrift://host:9083`, a cluster's `registry` interface)
without a JVM: Hive's Thrift API through the client that pymetastore generates from hive_metastore.thrift and the
thrift library's binary protocol on a plain socket. What the wait before Spark needs of a table feed's instances:
which partitions are registered, where, and since when (`probe_table`, as the catalog in Spark answers it).

Only reads, one connection per listing, each address of the URI tried in turn, every call bounded by `timeout`. A
metastore reached otherwise (SASL or Kerberos, which only Hive's own client speaks), one that does not answer, or a
table it does not have, is `NotReachedWithoutJvm`: the caller leaves the instance to the entrypoint, whose catalog
in Spark says what is wrong as it always has.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from toolkit.core.storage.catalog_records import Partition, utc_from_seconds
from toolkit.core.storage.catalog_thrift import endpoints_of
from toolkit.core.storage.filesystem import StorageError, normalize_uri
from toolkit.errors import UsageError

# The thrift library logs each address it cannot reach; this module says why it was not reached, once.
logging.getLogger("thrift").addHandler(logging.NullHandler())
logging.getLogger("thrift").propagate = False


class NotReachedWithoutJvm(UsageError):
    """The metastore's partitions could not be read without Hive's own client: why, in one sentence. A usage error
    (exit 2, no failure to tell), as a catalog asked of a call that has none (`RunContext.require_catalog`): the
    caller runs the entrypoint, which reaches the metastore through Spark."""


class MetastorePartitions:
    """`list_partitions` of the tables of the metastore at `uri`, as `Catalog.list_partitions` answers it."""

    def __init__(self, uri: str, timeout: float = 20.0) -> None:
        try:
            self.endpoints = endpoints_of(uri)
        except StorageError as err:
            raise NotReachedWithoutJvm(str(err)) from None
        self.timeout = timeout

    def list_partitions(self, database: str, table: str,
                        partial_spec: Mapping[str, str] | None = None) -> list[Partition]:
        """Every partition of `database.table` whose values equal `partial_spec`'s, sorted by their values."""
        from thrift.Thrift import TException

        failures = []
        for host, port in self.endpoints:
            try:
                listed = self._listed(host, port, database, table)
            except (TException, OSError, EOFError) as error:  # down, not answering, another transport, no table
                failures.append(f"{host}:{port}: {type(error).__name__}")
                continue
            wanted = dict(partial_spec or {})
            return sorted((p for p in listed if all(p.values.get(k) == v for k, v in wanted.items())),
                          key=lambda p: tuple(p.values.values()))
        raise NotReachedWithoutJvm(f"the metastore's partitions of {database}.{table} were not read without a JVM "
                                   f"({'; '.join(failures)})")

    def _listed(self, host: str, port: int, database: str, table: str) -> list[Partition]:
        from pymetastore.hive_metastore.ThriftHiveMetastore import Client
        from thrift.protocol.TBinaryProtocol import TBinaryProtocol
        from thrift.transport.TSocket import TSocket
        from thrift.transport.TTransport import TBufferedTransport

        socket = TSocket(host, port)
        socket.setTimeout(self.timeout * 1000)
        transport = TBufferedTransport(socket)
        transport.open()
        try:
            client = Client(TBinaryProtocol(transport))
            keys = [column.name for column in client.get_table(database, table).partitionKeys or []]
            if not keys:  # the catalog in Spark refuses a table that is not partitioned: let it say so
                raise NotReachedWithoutJvm(f"the table {database}.{table} is not partitioned")
            return [Partition(dict(zip(keys, found.values or [], strict=False)),
                              normalize_uri(found.sd.location) if found.sd and found.sd.location else None,
                              utc_from_seconds(found.createTime))
                    for found in client.get_partitions(database, table, -1)]
        finally:
            transport.close()
