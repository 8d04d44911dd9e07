"""The catalog's records: a table's facts (`TableInfo`), its whole description (`TableDescription`: columns,
storage format, properties) and its partitions, the same for every metastore. Immutable values: what a catalog
answers can be kept, compared and hashed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from types import MappingProxyType

from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.table_formats import format_of


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
class PartitionAddress:
    """A partition as a call names it: the table `database.table` and the partition's values (`spec`, every key
    for an export; None where the caller leaves them to another source, as an import to its export's)."""

    database: str
    table: str
    spec: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if self.spec is not None:
            object.__setattr__(self, "spec", MappingProxyType(dict(self.spec)))

    def __hash__(self) -> int:
        return hash((self.database, self.table, None if self.spec is None else frozenset(self.spec.items())))

    @property
    def qualified_table(self) -> str:
        return f"{self.database}.{self.table}"


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


def refuse_view(description: TableDescription, subject: str) -> None:
    """Only tables are created from a description; a view has no partitions of files to carry."""
    if description.table_type is TableType.VIEW:
        raise StorageError(f"Cannot create {subject} from {description.qualified_name}: it is a view, and only "
                           "tables are created from a description.")


def utc_from_seconds(seconds: float | int | None) -> datetime | None:
    """A metastore's time (seconds since the epoch; 0 or less: unknown) as a UTC datetime."""
    if not seconds or seconds <= 0:
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc)
