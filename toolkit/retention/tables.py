"""Retention of a table feed: drop the partitions whose dated values parse (per the feed's catalog URI)
to an instance before the cut-off and whose static values equal the URI's; instants are compared, not
strings. A managed table's partition data goes with the partition; for an external table the toolkit
deletes the location itself, and only when it lies under the table's location (never a shared folder).

Order, for a run killed at any moment: an external partition's data is deleted before the partition is
dropped, so a rerun still finds the partition and finishes; nothing outside the expired set is touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.el.templates import CatalogTemplate
from toolkit.storage.catalog import Catalog, Partition
from toolkit.storage.filesystem import FileSystem, normalize_uri


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
    """True when `location` lies strictly below `folder` (a path boundary, not a string prefix)."""
    location, folder = normalize_uri(location), normalize_uri(folder)
    return location != folder and location.startswith(folder.rstrip("/") + "/")


def drop_expired(catalog: Catalog, fs: FileSystem, uri: CatalogTemplate,
                 expired: list[ExpiredPartition]) -> dict[str, tuple[int, bool]]:
    """Drop each expired partition; returns partition name -> (bytes freed, whether its data was deleted)."""
    info = catalog.table_info(uri.database, uri.table)
    outcome: dict[str, tuple[int, bool]] = {}
    for item in expired:
        location = item.partition.location
        status = fs.status(location) if location else None
        size = fs.total_sizes([status])[status.path] if status is not None else 0
        if info.is_managed:
            catalog.drop_partition(uri.database, uri.table, item.partition.spec, delete_data=True)
            outcome[item.partition.name] = (size, True)
            continue
        deletable = location is not None and info.location is not None and under(location, info.location)
        if deletable:
            fs.delete(location, recursive=True)
        catalog.drop_partition(uri.database, uri.table, item.partition.spec, delete_data=False)
        outcome[item.partition.name] = (size if deletable else 0, deletable)
    return outcome
