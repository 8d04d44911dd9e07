"""The catalog of Hive tables: partitions, table facts, adding, moving and dropping partitions, a table like
another, and whole table descriptions (schema, storage, properties) to export a table and create it elsewhere.

Two implementations answer the same interface:
- `catalog_spark.SparkCatalog`: the active SparkSession's own catalog (its embedded Derby metastore, or
  whatever metastore the session is configured for), through the session catalog in its JVM;
- `catalog_thrift.ThriftCatalog`: a remote Thrift metastore named by a cluster's `registry` interface
  (`thrift://host:9083`), through Hive's metastore client in the same SparkSession's JVM.
`catalog_factory.catalog_for(spark, registry_uri)` picks one; this module never imports its implementations, and
nothing here imports pyspark at module level. The records it answers are in `catalog_records`; partition specs
are checked by `partition_specs`, the same for every implementation.

Partition values are strings in the table's partition-key order. Locations are full URIs spelled as the file
systems spell them (`file:///x`, `hdfs://nn:8020/x`). Every failure is a `StorageError` (exit 1) naming the
table or partition, or, when the metastore does not answer, its URI and what to do.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

from toolkit.core.storage.catalog_records import Partition, TableDescription, TableInfo
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.partition_specs import full_spec


class PartitionListing(Protocol):
    """What reads which partitions a table has: a `Catalog`, or a metastore read without a JVM
    (`metastore_partitions.MetastorePartitions`, for the wait before Spark)."""

    def list_partitions(self, database: str, table: str,
                        partial_spec: Mapping[str, str] | None = None) -> list[Partition]: ...


class Catalog(ABC):
    """Hive tables in one metastore. Database and table names are case-insensitive (Hive lowers them)."""

    #: Where the catalog lives, for messages: a `thrift://` URI or "the Spark session's catalog".
    description: str = "the catalog"

    @abstractmethod
    def table_info(self, database: str, table: str) -> TableInfo:
        """Location, type, partition keys and format of a table; StorageError when it does not exist."""

    @abstractmethod
    def list_partitions(self, database: str, table: str,
                        partial_spec: Mapping[str, str] | None = None) -> list[Partition]:
        """The table's partitions whose values equal `partial_spec`'s (any subset of the keys; None: all),
        sorted by their values in key order. Values are matched exactly (no patterns)."""

    def partition_location(self, database: str, table: str, spec: Mapping[str, str]) -> str | None:
        """The location of the partition with exactly these values (every key), or None when it does not exist."""
        info = self.table_info(database, table)
        wanted = full_spec(info, spec)
        for partition in self.list_partitions(database, table, wanted):
            if dict(partition.values) == wanted:
                return partition.location
        return None

    @abstractmethod
    def add_partition(self, database: str, table: str, spec: Mapping[str, str], location: str | None = None, *,
                      exist_ok: bool = False) -> bool:
        """Register a partition (every key given) at `location`, or at the table's default place for it
        (`<table location>/k1=v1/k2=v2`, which the metastore creates). True when added; False when it existed
        and `exist_ok`; StorageError when it existed otherwise."""

    @abstractmethod
    def drop_partition(self, database: str, table: str, spec: Mapping[str, str], delete_data: bool) -> bool:
        """Unregister a partition (every key given); False when there was none.

        With `delete_data` the metastore deletes the partition's files, and it does so for MANAGED tables only:
        an EXTERNAL table's files always stay, and a caller who wants them gone deletes the location itself
        (after checking that it lies under the table's location). Without `delete_data` the files stay for
        either type."""

    def drop_table(self, database: str, table: str) -> bool:
        """Unregister a table; False when there was none. Only an EXTERNAL table may be dropped this way (its
        files stay: the caller owns them); a MANAGED table is refused with a StorageError, so no data goes."""
        if not self.table_exists(database, table):
            return False
        info = self.table_info(database, table)
        if info.is_managed:
            raise StorageError(f"Refusing to drop the managed table {info.qualified_name}: its data would go too.")
        self._drop_external_table(info)
        return True

    @abstractmethod
    def _drop_external_table(self, info: TableInfo) -> None:
        """Unregister an EXTERNAL table that exists, leaving its files."""

    @abstractmethod
    def create_table_like(self, source_database: str, source_table: str, database: str, table: str,
                          location: str | None = None) -> TableInfo:
        """A new empty table with the source's columns, partition keys and storage format (no partitions,
        no statistics). With `location` it is EXTERNAL at that location; without, MANAGED at the database's
        default place (Spark's rule for CREATE TABLE LIKE, on both implementations)."""

    @abstractmethod
    def describe_table(self, database: str, table: str) -> TableDescription:
        """The table's columns, partition keys, storage format, properties, type and location; StorageError
        when it does not exist."""

    @abstractmethod
    def table_exists(self, database: str, table: str) -> bool:
        """True when the table (or view) exists; False also when its database does not."""

    @abstractmethod
    def database_exists(self, database: str) -> bool: ...

    @abstractmethod
    def create_database(self, database: str) -> bool:
        """Create a database at the metastore's default place for it; False when it exists already."""

    @abstractmethod
    def create_table(self, database: str, table: str, description: TableDescription,
                     location: str | None = None) -> TableInfo:
        """A new empty table `database.table` with the description's columns, partition keys, storage format,
        comment and properties (the description's own name and location are not used).

        A MANAGED description without `location` makes a MANAGED table at the database's default place for it;
        otherwise the table is EXTERNAL, at `location` or (None) at that same default place. StorageError when
        the table exists already (nothing is changed) or the database does not exist."""

    @abstractmethod
    def alter_partition_location(self, database: str, table: str, spec: Mapping[str, str], location: str) -> None:
        """Point an existing partition (every key given) at another directory, in one metastore call: readers
        see the old files or the new ones, never a mix. Files are neither moved nor deleted. StorageError when
        the partition does not exist."""

    def close(self) -> None:
        """Release the connection, if the implementation holds one."""
        return None

    @contextmanager
    def pinned_tables(self) -> Iterator[None]:
        """Inside, a table's description may be read from the metastore once and reused: one export or import
        asks for it several times within a fraction of a second. Tables this catalog creates, alters or drops
        are read again. By default every lookup goes to the metastore."""
        yield

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
