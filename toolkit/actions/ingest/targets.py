"""Where a streamed instance's batch files go, and what makes them visible: a file feed's instance folder (the
rename is the publication), or a table feed's partition folder, registered in the cluster's metastore after its
first file is in place (`add_partition`, exist_ok: two runs, or a replay, adding it at once is no error). A
partition thus appears with its first batch's rows, never empty, and each later batch's file appears whole.
`instance` reads an instance back whole, as a data-quality gate checks it before the instance is closed.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from toolkit.core.entities.model import Column, Feed
from toolkit.core.instances.feed_locations import FeedLocations
from toolkit.core.ledger.ingest_book import BatchFile
from toolkit.core.ledger.records import record_time
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem, normalize_uri
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.partition_specs import full_spec
from toolkit.core.storage.partition_versions import canonical_directory
from toolkit.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# The storage formats ingest writes, as Spark's data sources (a table's `format` as the catalog reports it).
WRITABLE = ("parquet", "orc", "json", "csv")


class Targets(Protocol):
    columns: tuple[Column, ...]
    storage_format: str

    def folder(self, t: datetime) -> str:
        """The folder the instance's batch files are renamed into."""

    def published(self, each: BatchFile) -> None:
        """Called once a batch file is in place (again after a replay: idempotent)."""

    def instance(self, spark: SparkSession, fs: FileSystem, t: datetime) -> DataFrame:
        """Every row of the instance `t` written so far (toolkit/services/quality/frames.py)."""


class FileTargets:
    def __init__(self, feed: Feed, where: FeedLocations) -> None:
        self.feed, self.where, self.columns, self.storage_format = feed, where, feed.columns, feed.storage_format

    def folder(self, t: datetime) -> str:
        return self.where.event_location(t)

    def published(self, each: BatchFile) -> None:
        """A file feed's instance is its folder: the rename was the publication."""

    def instance(self, spark: SparkSession, fs: FileSystem, t: datetime) -> DataFrame:
        from toolkit.services.quality.frames import file_instance

        return file_instance(spark, fs, self.feed, self.folder(t))


class TableTargets:
    """A table feed's partitions; its columns are the feed's `columns`, else the table's data columns."""

    def __init__(self, feed: Feed, where: FeedLocations, catalog: Catalog) -> None:
        assert where.table is not None
        self.where, self.catalog, self.template = where, catalog, where.table
        database, table = where.table.database, where.table.table
        if not catalog.table_exists(database, table):
            raise UsageError(f"The table {database}.{table} of feed '{feed.name}' does not exist in "
                             f"{catalog.description}: create it (columns, partition keys, format); ingest adds its "
                             "partitions.")
        description = catalog.describe_table(database, table)
        if description.location is None:
            raise UsageError(f"The table {database}.{table} of feed '{feed.name}' has no location: ingest cannot "
                             "place its partitions.")
        self.info, self.location = description.info, normalize_uri(description.location)
        self.storage_format = description.storage.format
        if self.storage_format not in WRITABLE:
            raise UsageError(f"The table {database}.{table} of feed '{feed.name}' is stored as {self.storage_format}: "
                             f"ingest writes {', '.join(WRITABLE)} tables; store it as one of those.")
        self.columns = feed.columns or tuple(Column(name=c.name, type=c.type) for c in description.columns)
        self._folders: dict[datetime, str] = {}
        self._registered: set[datetime] = set()

    def _spec(self, t: datetime) -> dict[str, str]:
        return full_spec(self.info, self.template.format(t, self.where.zone))

    def instance(self, spark: SparkSession, fs: FileSystem, t: datetime) -> DataFrame:
        from toolkit.services.quality.frames import table_partition

        return table_partition(spark, fs, self.storage_format, f"{self.template.database}.{self.template.table}",
                               self.folder(t), self._spec(t))

    def folder(self, t: datetime) -> str:
        if t not in self._folders:
            spec = self._spec(t)
            current = self.catalog.partition_location(self.template.database, self.template.table, spec)
            if current is not None:
                self._registered.add(t)
            self._folders[t] = normalize_uri(current) if current is not None else canonical_directory(
                self.location, partition_name(spec))
        return self._folders[t]

    def published(self, each: BatchFile) -> None:
        if not each.time:
            return  # the dead letters
        t = record_time(each.time)
        if t not in self._registered:
            self.catalog.add_partition(self.template.database, self.template.table, self._spec(t),
                                       each.target.rsplit("/", 1)[0], exist_ok=True)
            self._registered.add(t)
