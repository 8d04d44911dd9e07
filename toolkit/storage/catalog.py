"""The catalog of Hive tables: partitions, table facts, adding, moving and dropping partitions, a table like
another, and whole table descriptions (schema, storage, properties) to export a table and create it elsewhere.

Two implementations answer the same interface:
- `catalog_spark.SparkCatalog`: the active SparkSession's own catalog (its embedded Derby metastore, or
  whatever metastore the session is configured for), through the session catalog in its JVM;
- `catalog_thrift.ThriftCatalog`: a remote Thrift metastore named by a cluster's `registry` interface
  (`thrift://host:9083`), through Hive's metastore client in the same SparkSession's JVM.
`catalog_factory.catalog_for(spark, registry_uri)` picks one; this module never imports its implementations, and
nothing here imports pyspark at module level.

Partition values are strings in the table's partition-key order. Locations are full URIs spelled as the file
systems spell them (`file:///x`, `hdfs://nn:8020/x`). Every failure is a `StorageError` (exit 1) naming the
table or partition, or, when the metastore does not answer, its URI and what to do.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from types import MappingProxyType
from typing import Any

from toolkit.storage.filesystem import StorageError


class TableType(str, Enum):
    """Who owns a table's files: the metastore (MANAGED: dropping drops data) or the user (EXTERNAL)."""

    MANAGED = "MANAGED"
    EXTERNAL = "EXTERNAL"
    VIEW = "VIEW"


@dataclass(frozen=True)
class Partition:
    """One partition: its values (key -> value, in the table's key order), location URI, creation time (UTC)."""

    values: Mapping[str, str]
    location: str | None
    create_time: datetime | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    def __hash__(self) -> int:
        return hash((tuple(self.values.items()), self.location))

    @property
    def spec(self) -> dict[str, str]:
        """A plain (mutable) copy of the values, to pass back to the catalog."""
        return dict(self.values)

    @property
    def name(self) -> str:
        """Hive's partition name, `ds=2026-11-21/region=eu`, each key and value escaped as Hive escapes them."""
        return partition_name(self.values)


@dataclass(frozen=True)
class TableInfo:
    """What the toolkit needs to know about a table."""

    database: str
    name: str
    location: str | None
    table_type: TableType
    partition_keys: tuple[str, ...]
    format: str  # parquet, orc, avro, text, csv, json, sequencefile, rcfile ... or the input format class

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"

    @property
    def is_managed(self) -> bool:
        return self.table_type is TableType.MANAGED

    @property
    def is_external(self) -> bool:
        return self.table_type is TableType.EXTERNAL


@dataclass(frozen=True)
class Column:
    """A column or partition key: its name, its Hive type as the metastore spells it (`int`, `decimal(10,2)`,
    `array<string>`, `struct<a:int,b:string>`) and its comment."""

    name: str
    type: str
    comment: str | None = None


@dataclass(frozen=True)
class StorageFormat:
    """How a table's files are written and read: Hive's input/output formats and serde (with its parameters,
    Spark's `path` left out), and Spark's data source (`parquet`, `orc`, `csv` ...) for a Spark table, None for
    a Hive table."""

    input_format: str | None
    output_format: str | None
    serde: str | None
    serde_parameters: Mapping[str, str] = field(default_factory=dict, hash=False)
    provider: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "serde_parameters", MappingProxyType(dict(self.serde_parameters)))

    @property
    def format(self) -> str:
        """One word for the format (as TableInfo.format)."""
        return format_of(self.provider, self.input_format, self.serde)


@dataclass(frozen=True)
class TableDescription:
    """All a table is, apart from its partitions and data: enough to create the same table elsewhere.

    `columns` are the data columns; `partition_columns` the partition keys, in order. `properties` are the
    table's own (user properties and Spark's schema properties), without the volatile ones that describe its
    data or its last change (see `is_volatile_property`) and without `comment`, which is its own field."""

    database: str
    name: str
    table_type: TableType
    location: str | None
    columns: tuple[Column, ...]
    partition_columns: tuple[Column, ...]
    storage: StorageFormat
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    comment: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "partition_columns", tuple(self.partition_columns))
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"

    @property
    def partition_keys(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.partition_columns)

    @property
    def info(self) -> TableInfo:
        return TableInfo(self.database, self.name, self.location, self.table_type, self.partition_keys,
                         self.storage.format)


# Table properties that describe a table's data or its last change, not its shape: a description leaves them
# out, and a table created from one (or like another) starts without them.
VOLATILE_PROPERTIES = frozenset([
    "numFiles", "numRows", "totalSize", "rawDataSize", "numFilesErasureCoded", "COLUMN_STATS_ACCURATE",
    "transient_lastDdlTime", "last_modified_by", "last_modified_time", "EXTERNAL",
])
VOLATILE_PROPERTY_PREFIXES = ("spark.sql.statistics.",)


def is_volatile_property(key: str) -> bool:
    return key in VOLATILE_PROPERTIES or key.startswith(VOLATILE_PROPERTY_PREFIXES)


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


def refuse_view(description: TableDescription, subject: str) -> None:
    """Only tables are created from a description; a view has no partitions of files to carry."""
    if description.table_type is TableType.VIEW:
        raise StorageError(f"Cannot create {subject} from {description.qualified_name}: it is a view, and only "
                           "tables are created from a description.")



# ---------------------------------------------------------------------------------------------------------------
# Partition specs: checked and ordered against the table's keys, the same way for every implementation.


def _match_keys(info: TableInfo, spec: Mapping[str, Any], what: str) -> dict[str, str]:
    by_lower = {key.lower(): key for key in info.partition_keys}
    given: dict[str, str] = {}
    for key, value in spec.items():
        name = by_lower.get(str(key).lower())
        if name is None:
            keys = ", ".join(info.partition_keys) or "none"
            raise StorageError(f"{what} names the key {key!r}, which is not a partition key of {info.qualified_name} "
                               f"(its partition keys: {keys}).")
        if value is None or isinstance(value, bool) or not isinstance(value, (str, int)):
            raise StorageError(f"{what} gives {key}={value!r} for {info.qualified_name}: partition values are strings.")
        text = str(value)
        if not text:
            raise StorageError(f"{what} gives an empty value for {key} of {info.qualified_name}: "
                               "partition values cannot be empty.")
        given[name] = text
    return {key: given[key] for key in info.partition_keys if key in given}


def partial_spec_of(info: TableInfo, spec: Mapping[str, Any] | None) -> dict[str, str]:
    """A partial spec's keys matched (case-insensitively) to the table's, in key order; StorageError otherwise."""
    if not info.partition_keys:
        raise StorageError(f"{info.qualified_name} is not partitioned: it has no partitions to list or change.")
    return _match_keys(info, spec or {}, "The partition filter")


def full_spec(info: TableInfo, spec: Mapping[str, Any]) -> dict[str, str]:
    """A spec that gives every partition key of the table, in key order; StorageError otherwise."""
    if not info.partition_keys:
        raise StorageError(f"{info.qualified_name} is not partitioned: it has no partitions to list or change.")
    matched = _match_keys(info, spec, f"The partition {describe_spec(spec)}")
    missing = [key for key in info.partition_keys if key not in matched]
    if missing:
        raise StorageError(f"The partition {describe_spec(spec)} of {info.qualified_name} lacks a value for "
                           f"{', '.join(missing)}: give every partition key ({', '.join(info.partition_keys)}).")
    return matched


def describe_spec(spec: Mapping[str, Any]) -> str:
    """`(ds='2026-11-21', region='eu')`, for messages."""
    return "(" + ", ".join(f"{key}={value!r}" for key, value in spec.items()) + ")"


def matches(values: Mapping[str, str], partial: Mapping[str, str]) -> bool:
    return all(values.get(key) == value for key, value in partial.items())


def sort_partitions(partitions: Iterable[Partition], keys: tuple[str, ...]) -> list[Partition]:
    return sorted(partitions, key=lambda p: tuple(p.values.get(key, "") for key in keys))


# Hive's FileUtils.escapePathName (and Spark's ExternalCatalogUtils): these characters become %XX in names.
_ESCAPED = frozenset([chr(code) for code in range(1, 0x20)] + list('"#%\'*/:=?\\\x7f{[]^'))


def escape_path_name(text: str) -> str:
    return "".join(f"%{ord(char):02X}" if char in _ESCAPED else char for char in text)


def unescape_path_name(text: str) -> str:
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def partition_name(values: Mapping[str, str]) -> str:
    """`ds=2026-11-21/region=eu`: the partition's name (and its directory below the table) as Hive writes it."""
    return "/".join(f"{escape_path_name(key)}={escape_path_name(value)}" for key, value in values.items())


def utc_from_seconds(seconds: float | int | None) -> datetime | None:
    if not seconds or seconds <= 0:
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


_FORMAT_BY_CLASS = (
    ("parquet", "parquet"), ("orc", "orc"), ("avro", "avro"), ("opencsvserde", "csv"), ("jsonserde", "json"),
    ("rcfile", "rcfile"), ("sequencefile", "sequencefile"), ("textinputformat", "text"),
)


def format_of(provider: str | None, input_format: str | None, serde: str | None) -> str:
    """One word for a table's storage format: Spark's provider when it has one, else from Hive's classes."""
    if provider and provider.lower() != "hive":
        return provider.lower()
    for class_name in (serde, input_format):
        simple_name = (class_name or "").rsplit(".", 1)[-1].lower()
        for needle, name in _FORMAT_BY_CLASS:
            if needle in simple_name:
                return name
    return input_format or serde or "unknown"


def one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
