"""The data a gate checks, read where it waits to be published, in the run's own SparkSession: a file feed's
staged folder with the feed's `format` (and its declared `columns` as the schema of text formats), or a table
feed's staged partition. Nothing is cached: one instance is read once per suite's Spark jobs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Feed
from toolkit.core.storage.filesystem import FileSystem
from toolkit.core.storage.tree import data_files

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

# Formats whose files carry their schema: a staged partition is read by path, without the metastore.
SELF_DESCRIBING = ("parquet", "orc", "avro")


def _declared_schema(feed: Feed) -> str | None:
    return ", ".join(f"`{column.name}` {column.type}" for column in feed.columns) or None


def file_instance(spark: SparkSession, fs: FileSystem, feed: Feed, folder: str) -> DataFrame:
    """The instance of file `feed` in `folder` (a staging folder, or a published instance). An instance without
    data files is an empty frame (with the declared columns, when the feed declares them)."""
    schema = _declared_schema(feed)
    if not data_files(fs, folder):
        return spark.createDataFrame([], schema or "_no_data string").select(
            *([column.name for column in feed.columns] if schema else []))
    reader = spark.read.format(feed.storage_format)
    if schema is not None and feed.storage_format in ("json", "csv"):
        reader = reader.schema(schema)
    return reader.load(folder)


def table_partition(spark: SparkSession, fs: FileSystem, table_format: str, qualified_table: str, directory: str,
                    values: Mapping[str, str]) -> DataFrame:
    """A partition of `qualified_table` whose files are in `directory` (staged, or published), with its
    partition keys as columns. Self-describing formats are read by path; others through the session's catalog."""
    from pyspark.sql import functions as F

    if table_format in SELF_DESCRIBING:
        if not data_files(fs, directory):
            frame = spark.table(qualified_table).limit(0).drop(*values)
        else:
            frame = spark.read.format(table_format).load(directory)
        return frame.select("*", *(F.lit(value).alias(key) for key, value in values.items()))
    spark.catalog.refreshTable(qualified_table)
    condition = F.lit(True)
    for key, value in values.items():
        condition = condition & (F.col(key).cast("string") == value)
    return spark.table(qualified_table).where(condition)
