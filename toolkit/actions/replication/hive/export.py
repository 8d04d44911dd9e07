"""Export one partition of a Hive table: its data files copied byte for byte into `DIR/data/`, then
`DIR/_metadata.json` (see metadata.py) written atomically, last: a directory with it is a complete export.

The source is read through the source cluster's catalog and file system; `DIR` may be on another file system
(replication exports straight into a staging directory on the target cluster, so the copy is the export).
A partition that does not exist yet is a WaitingError (exit 3): the scheduler calls again later.

`DIR` must be new, empty, or an earlier export (only `_metadata.json`, `data/` and the temporary files of an
atomic write): an earlier export is replaced, its `_metadata.json` removed first so that the directory is never
taken for complete while it is rewritten. Anything else in it is refused, so a mistyped `--to` deletes nothing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

from toolkit.actions.replication.hive.copying import CopyTask, copy_files
from toolkit.actions.replication.hive.metadata import DATA_DIR, METADATA_NAME, ExportedFile, ExportMetadata
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_records import PartitionAddress, TableType
from toolkit.core.storage.filesystem import FileSystem, StorageError, normalize_uri
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.partition_specs import full_spec
from toolkit.core.storage.tree import data_files, join
from toolkit.errors import WaitingError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class ExportResult:
    """What an export did: the partition, where it went, and its counters."""

    database: str
    table: str
    partition: Mapping[str, str]
    source_location: str
    directory: str
    export_id: str
    files: int
    bytes: int
    seconds: float
    metadata: ExportMetadata = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "partition", MappingProxyType(dict(self.partition)))

    @property
    def partition_name(self) -> str:
        return partition_name(self.partition)

    def counters(self) -> dict[str, object]:
        return {"files": self.files, "bytes": self.bytes, "seconds": round(self.seconds, 3)}


def is_export_leftover(name: str) -> bool:
    """What an earlier export leaves in its directory."""
    return name in (METADATA_NAME, DATA_DIR) or (name.startswith(f".{METADATA_NAME}.") and name.endswith(".tmp"))


def prepare_directory(fs: FileSystem, directory: str) -> None:
    """Make `directory` an empty place for an export, removing an earlier export (metadata first)."""
    status = fs.status(directory)
    if status is None:
        fs.mkdirs(directory)
        return
    if not status.is_dir:
        raise StorageError(f"Cannot export to {directory}: it is a file; give a new or empty directory.")
    children = fs.list(directory)
    foreign = [child for child in children if not is_export_leftover(child.name)]
    if foreign:
        raise StorageError(f"Cannot export to {directory}: it holds {foreign[0].path}, which is not part of an "
                           "export; give a new or empty directory (an earlier export there is replaced).")
    metadata = join(directory, METADATA_NAME)
    if fs.exists(metadata):
        fs.delete(metadata, recursive=False)
    for child in children:
        if child.name != METADATA_NAME:
            fs.delete(child.path, recursive=True)


@dataclass(frozen=True)
class ExportOrigin:
    """The feed instance an export is made for, recorded in its `_metadata.json` for the import."""

    feed: str
    cluster: str
    instance_time: datetime


def export_partition(spark: SparkSession, catalog: Catalog, fs: FileSystem, partition: PartitionAddress,
                     destination: str, *, target_fs: FileSystem | None = None,
                     origin: ExportOrigin | None = None) -> ExportResult:
    """Export `partition` (its spec gives every key) of its table in `catalog`, whose files `fs` reads, into the
    directory `destination` (written through `target_fs`, default `fs`); `origin` is recorded for the import."""
    began = time.perf_counter()
    target_fs = target_fs or fs
    destination = normalize_uri(destination)
    with catalog.pinned_tables():  # the table is read once for both questions
        description = catalog.describe_table(partition.database, partition.table)
        if description.table_type is TableType.VIEW:
            raise StorageError(f"Cannot export from {description.qualified_name}: it is a view, not a table with "
                               "partitions of files.")
        values = full_spec(description.info, partition.spec or {})
        location = catalog.partition_location(description.database, description.name, values)
    name = partition_name(values)
    if location is None:
        raise WaitingError(f"The partition {name} of {description.qualified_name} does not exist yet in "
                           f"{catalog.description}: nothing to export; call again once it is written.")
    files = data_files(fs, location)
    prepare_directory(target_fs, destination)
    data_dir = join(destination, DATA_DIR)
    target_fs.mkdirs(data_dir)
    copied = copy_files(spark, fs, [CopyTask(item.status.path, join(data_dir, item.relative_path), item.status.length,
                                         item.status.modification_time) for item in files])
    metadata = ExportMetadata(
        export_id=secrets.token_hex(8),
        table=description,
        partition=values,
        files=tuple(ExportedFile(item.relative_path, result.bytes, result.crc32c)
                    for item, result in zip(files, copied, strict=True)),
        source_location=location,
        feed=origin.feed if origin else None,
        cluster=origin.cluster if origin else None,
        instance_time=origin.instance_time if origin else None,
    )
    target_fs.write_atomically(join(destination, METADATA_NAME), metadata.to_json())
    return ExportResult(description.database, description.name, values, location, destination, metadata.export_id,
                        len(metadata.files), metadata.total_bytes, time.perf_counter() - began, metadata)
