"""Retention of a table feed: drop the partitions whose dated values parse (per the feed's catalog URI)
to an instance before the cut-off and whose static values equal the URI's; instants are compared, not
strings. A managed table's partition data goes with the partition; for an external table the toolkit
deletes the location itself, and only when it lies under the table's location (never a shared folder, and
never a location with a `.` or `..` segment: `<table>/../elsewhere` is not under the table).

Order, for a run killed at any moment: an external partition's data is deleted before the partition is
dropped, so a rerun still finds the partition and finishes; nothing outside the expired set is touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.templates import CatalogTemplate
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_records import Partition
from toolkit.core.storage.filesystem import FileSystem
from toolkit.uris import has_dot_segment, is_below


@dataclass(frozen=True)
class ExpiredPartition:
    time: datetime
    partition: Partition


def expired_partitions(catalog: Catalog, uri: CatalogTemplate, zone: ZoneInfo,
                       cut_off: datetime) -> list[ExpiredPartition]:
    """The table's partitions that are instances of the URI older than the cut-off, oldest first."""
    found = []
    for partition in catalog.list_partitions(uri.database, uri.table, uri.static_partitions or None):
        instance_time = uri.parse(partition.values, zone)
        if instance_time is not None and instance_time < cut_off:
            found.append(ExpiredPartition(instance_time, partition))
    return sorted(found, key=lambda item: (item.time, sorted(item.partition.values.items())))


def under(location: str, folder: str) -> bool:
    """True when `location` lies strictly below `folder` (a path boundary, not a string prefix; never through
    a `.` or `..` segment)."""
    return is_below(location, folder)


@dataclass(frozen=True)
class PlannedDrop:
    """An expired partition, the bytes under its location, and whether dropping it removes that data."""

    expired: ExpiredPartition
    bytes: int
    deletes_data: bool


def plan_drops(catalog: Catalog, fs: FileSystem, uri: CatalogTemplate,
               expired: list[ExpiredPartition]) -> list[PlannedDrop]:
    """What dropping each expired partition frees: a managed table's partition data goes with it; an external
    one's only when its location lies under the table's location. A location with a `.` or `..` segment is
    never deleted through, managed or not (the metastore would resolve the climb). A dry run prints this plan."""
    info = catalog.table_info(uri.database, uri.table)
    planned = []
    for item in expired:
        location = item.partition.location
        climbs = location is not None and has_dot_segment(location)
        deletes = not climbs and (info.is_managed or (location is not None and info.location is not None
                                                      and under(location, info.location)))
        status = fs.status(location) if deletes and location else None
        size = fs.total_sizes([status])[status.path] if status is not None else 0
        planned.append(PlannedDrop(item, size, deletes))
    return planned


def drop_planned(catalog: Catalog, fs: FileSystem, uri: CatalogTemplate, planned: list[PlannedDrop]) -> None:
    """Drop the planned partitions; an external partition's own data is deleted first (see the module's docstring)."""
    info = catalog.table_info(uri.database, uri.table)
    for drop in planned:
        spec = drop.expired.partition.spec
        if info.is_managed:
            catalog.drop_partition(uri.database, uri.table, spec, delete_data=drop.deletes_data)
            continue
        if drop.deletes_data and drop.expired.partition.location:
            fs.delete(drop.expired.partition.location, recursive=True)
        catalog.drop_partition(uri.database, uri.table, spec, delete_data=False)
