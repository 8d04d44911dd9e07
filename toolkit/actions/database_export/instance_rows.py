"""The rows of a published instance an export writes: a file feed's instance read in its format (the declared
columns for text formats), a table feed's partition read from its table with its partition columns; then the
columns the export's `fields` take, each of which the target table must have."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Feed, Fields
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import FeedLocations
from toolkit.errors import ToolkitError, UsageError, WaitingError
from toolkit.services.datasource_access.fields import selected, spelled_as
from toolkit.services.runtime.run_context import RunContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def missing(feed: Feed, where: FeedLocations, t: datetime, context: RunContext) -> str | None:
    """Why the instance is not available as its readers see it (its flag, folder or partition), None when it is."""
    state = probe_instance(context.fs, where, feed.availability_flag,
                           lambda: context.require_catalog(feed.name, where.cluster), t)
    if state.available:
        return None
    return (f"The instance {format_timestamp(t)} of feed '{feed.name}' on cluster '{where.cluster}' is not available "
            f"({where.event_location(t)}): it is exported once it is published")


def instance_rows(spark: SparkSession, feed: Feed, where: FeedLocations, t: datetime, context: RunContext,
                  fields: Fields | None, owner: str) -> tuple[DataFrame, str]:
    """The instance's rows with the columns `fields` take, and where the instance is; WaitingError (3) while it is
    not available (not published yet, or its flag not written)."""
    why = missing(feed, where, t, context)
    if why is not None:
        raise WaitingError(why + ".")
    location = where.event_location(t)
    if where.is_table:
        frame = _partition(spark, where, t)
    else:
        from toolkit.services.quality.frames import file_instance

        frame = file_instance(spark, context.fs, feed, location)
    return selected(frame, fields, owner), location


def _partition(spark: SparkSession, where: FeedLocations, t: datetime) -> DataFrame:
    from pyspark.sql import functions as F

    assert where.table is not None
    values = where.table.format(t, where.zone)
    condition = F.lit(True)
    for key, value in values.items():
        condition = condition & (F.col(f"`{key}`").cast("string") == value)
    return spark.table(f"`{where.table.database}`.`{where.table.table}`").where(condition)


def require_target_columns(frame: DataFrame, target_columns: list[str], table: str, owner: str) -> list[str]:
    """The rows' columns as the target table spells them; UsageError naming those it does not have, ToolkitError
    when the instance has no column at all (a folder without data files, nothing to say what it holds)."""
    if not frame.columns:
        raise ToolkitError(f"{owner}: the instance holds no data file, so no column to export: publish it with its "
                           "files (and the feed's availability flag last), then export it again.")
    columns, missing = spelled_as(frame.columns, target_columns)
    if missing:
        raise UsageError(f"{owner}: the target table {table} has no column {', '.join(repr(n) for n in missing)} "
                         f"(its columns: {', '.join(target_columns)}); leave them out with the export's "
                         "fields.excludes, or add them to the table.")
    return columns


def require_key_columns(keys: tuple[str, ...], target_columns: list[str], table: str, owner: str) -> tuple[str, ...]:
    """The columns of `arguments.update-key` as the target table spells them; UsageError naming those it does not
    have."""
    spelled, missing = spelled_as(keys, target_columns)
    if missing:
        raise UsageError(f"{owner}: its arguments.update-key names {', '.join(repr(n) for n in missing)}, which the "
                         f"target table {table} does not have (its columns: {', '.join(target_columns)}); correct "
                         "the update key.")
    return tuple(spelled)
