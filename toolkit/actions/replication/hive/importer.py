"""Import an exported partition into a table of the target catalog; readers never see a partial partition.

Order, so that a run killed at any moment leaves the metastore pointing at complete data and a rerun finishes:
1. read `DIR/_metadata.json`; check that `DIR/data/` holds exactly the listed files with their sizes (and,
   by default, CRC32C checksums); refuse otherwise, before anything changes;
2. take the target table: create the database and table from the export's description when missing, or check
   that the existing one is compatible (columns and types, partition keys, storage format); refuse otherwise,
   before anything changes;
3. put the files in the partition's directory, which no reader looks at yet: `DIR/data` is renamed there when
   it is on the same file system (the export is consumed, one rename), else copied into a hidden staging folder
   beside the partitions (checksums checked on the way) which is then renamed there;
4. only then register the partition: added when new; when it exists, its location is switched to the new
   directory in one metastore call, and the old directory is deleted afterwards (only when it lies under the
   table's location: data elsewhere belongs to someone else and is kept, and reported); last, a consumed
   export's directory (its `_metadata.json` left) is deleted.
Steps 3 and 4 are one core/storage/publish.py Publication: the caller's `guard` (its lease check) is called right
before the rename and before the switch, and a failure of either undoes what was done.

The partition's directory is the table's location plus the partition's name (`ds=2026-11-21/region=eu`), for
external tables as well. Replacing a partition that lives there puts the new files under
`<table location>/.toolkit-partitions/<export id>/<partition name>`, and the next replacement goes back to
the plain place (hidden folders are skipped by Hive's and Spark's readers and by MSCK REPAIR). A directory
at the new place that no partition points to is a leftover of an interrupted run and is replaced. The rules
for the directories are `toolkit/core/storage/partition_versions.py`'s, shared with the process runner.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from toolkit.actions.replication.hive.compat import describe_differences, differences
from toolkit.actions.replication.hive.copying import CopyTask, copy_files, crc32c_files
from toolkit.actions.replication.hive.export import is_export_leftover
from toolkit.actions.replication.hive.metadata import DATA_DIR, METADATA_NAME, ExportMetadata
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_records import PartitionAddress, TableDescription, TableType
from toolkit.core.storage.filesystem import FileSystem, StorageError, normalize_uri, parent_of
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.partition_specs import describe_spec, full_spec
from toolkit.core.storage.partition_versions import (
    canonical_directory,
    next_directory,
    remove_unreferenced,
    switch,
    under,
    versioned_directory,
)
from toolkit.core.storage.publish import Guard, Publication, no_guard
from toolkit.core.storage.tree import data_files, hidden, join, walk_below
from toolkit.uris import is_below

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

STAGING_PREFIX = ".toolkit-staging-"
_ROOT = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(//[^/]*)?")


@dataclass(frozen=True)
class ImportOptions:
    """How an export becomes a partition. `table_location`: where a table created by the import lives (default:
    the database's place for it; an exported EXTERNAL table is created EXTERNAL). `keep_export`: copy the files
    and leave the export as it is (by default they are moved when the export is on the table's file system, and
    the export is deleted once imported). `checksums`: check each file's CRC32C before anything changes (sizes
    are always checked). `keep_consumed_export`: leave a consumed export's `_metadata.json` for the caller to
    delete (`remove_consumed_export`) once it recorded the import, so that a run killed in between is found and
    finished by the next. `cluster_root`: the cluster's root; a symbolic link on the way from it (else from the
    table's location) to the partition's directory is refused before anything moves."""

    table_location: str | None = None
    keep_export: bool = False
    checksums: bool = True
    keep_consumed_export: bool = False
    cluster_root: str | None = None


@dataclass(frozen=True)
class ImportResult:
    """What an import did: the partition, its new location, and its counters."""

    database: str
    table: str
    partition: Mapping[str, str]
    location: str
    directory: str
    export_id: str
    files: int
    bytes: int
    seconds: float
    table_created: bool = False
    replaced: bool = False
    moved: bool = False  # the export's files were moved (the export is consumed), not copied
    previous_location: str | None = None
    previous_location_kept: bool = False  # outside the table's location: left in place
    resumed: bool = False  # an earlier run of this import had moved the files: this one finished its work

    def __post_init__(self) -> None:
        object.__setattr__(self, "partition", MappingProxyType(dict(self.partition)))

    @property
    def partition_name(self) -> str:
        return partition_name(self.partition)

    def counters(self) -> dict[str, object]:
        return {"files": self.files, "bytes": self.bytes, "seconds": round(self.seconds, 3),
                "table_created": self.table_created, "replaced": self.replaced}


def read_export(fs: FileSystem, directory: str) -> ExportMetadata:
    """The export record in `directory`; StorageError when there is none (the export is missing or unfinished)."""
    path = join(directory, METADATA_NAME)
    if not fs.exists(path):
        raise StorageError(f"{normalize_uri(directory)} holds no complete export (no {METADATA_NAME}): give the "
                           "directory that hive_export.py wrote, after it finished.")
    return ExportMetadata.from_json(fs.read(path), path)


def file_problem(fs: FileSystem, root: str, metadata: ExportMetadata, directory: str) -> str | None:
    """Why `root` does not hold exactly the export's files with their sizes (one sentence), or None. A symbolic
    link anywhere below it (a hidden name too) is a problem: moved into a partition, readers would follow it
    out of the table."""
    walked = walk_below(fs, root)
    if walked.links:
        return (f"{walked.links[0]} is a symbolic link in the export in {directory}, which the toolkit never "
                "follows or moves into a table: remove it, or export the partition again.")
    found = {item.relative_path: item for item in walked.files
             if not any(hidden(name) for name in item.relative_path.split("/"))}
    for expected in metadata.files:
        item = found.pop(expected.path, None)
        path = join(root, expected.path)
        if item is None:
            return (f"{path} is missing: the export in {directory} is incomplete or damaged; export the partition "
                    "again.")
        if item.status.length != expected.size:
            return (f"{path} is {item.status.length} bytes where the export's list says {expected.size}: the "
                    f"export in {directory} is damaged; export the partition again.")
    if found:
        return (f"{join(root, sorted(found)[0])} is not in the export's file list ({METADATA_NAME}): remove it "
                f"from the export in {directory}, or export the partition again.")
    return None


def checksum_problem(spark: SparkSession, root: str, metadata: ExportMetadata, directory: str) -> str | None:
    """Why a file below `root` does not have the export's CRC32C (one sentence), or None."""
    paths = [join(root, item.path) for item in metadata.files]
    sums = crc32c_files(spark, paths)
    for item, path in zip(metadata.files, paths, strict=True):
        crc = sums[path]
        if crc != item.crc32c:
            return (f"{path} has CRC32C {crc} where the export's list says {item.crc32c}: the export in "
                    f"{directory} is damaged; export the partition again.")
    return None


def _root(uri: str) -> str:
    found = _ROOT.match(uri)
    return (found.group(0) if found else "").lower()


def _check_keys(values: Mapping[str, str], exported: TableDescription) -> None:
    if sorted(key.lower() for key in values) != sorted(key.lower() for key in exported.partition_keys):
        raise StorageError(f"The partition {describe_spec(values)} does not name the partition keys of the "
                           f"exported table {exported.qualified_name} ({', '.join(exported.partition_keys)}): "
                           "the feed's catalog URI on the target cluster must name the same keys.")


def _check_compatible(catalog: Catalog, target: TableDescription, exported: TableDescription, directory: str) -> None:
    if target.table_type is TableType.VIEW:
        raise StorageError(f"{target.qualified_name} in {catalog.description} is a view: it cannot take the "
                           f"partition exported in {directory}; name a table in the feed's catalog URI.")
    found = differences(exported, target)
    if found:
        raise StorageError(f"The table {target.qualified_name} in {catalog.description} does not match the table "
                           f"exported in {directory} ({describe_differences(found)}), so nothing was imported: "
                           "make it match the export, or drop it so that the import creates it, then run again.")


def target_table(catalog: Catalog, database: str, table: str, exported: TableDescription, directory: str,
                 table_location: str | None = None) -> tuple[TableDescription, bool]:
    """The existing target table, checked against the export, or a new one made from the export's
    description (its database too); and whether it was created."""
    try:
        target = catalog.describe_table(database, table)  # the usual case: one metastore call
    except StorageError:
        if catalog.table_exists(database, table):
            raise
    else:
        _check_compatible(catalog, target, exported, directory)
        return target, False
    catalog.create_database(database)
    try:
        catalog.create_table(database, table, exported, table_location)
    except StorageError:
        if not catalog.table_exists(database, table):
            raise
        target = catalog.describe_table(database, table)  # a concurrent import made it: check it as any other
        _check_compatible(catalog, target, exported, directory)
        return target, False
    return catalog.describe_table(database, table), True


def _clean_up(fs: FileSystem, directory: str, location: str, canonical: str, current: str | None, final: str,
              consumed: bool) -> None:
    """Once the partition is published: the replaced directory goes (under the table's location only), and a
    consumed export's directory (its metadata left)."""
    previous = current if current is not None and current != final else None
    for stale in dict.fromkeys(path for path in (previous, canonical) if path and path != final):
        remove_unreferenced(fs, stale, location)
    if consumed:
        remove_consumed_export(fs, directory)


def remove_consumed_export(fs: FileSystem, directory: str) -> None:
    """Delete an export whose files are a partition now (only its `_metadata.json` and leftovers remain)."""
    if fs.exists(directory) and all(is_export_leftover(child.name) for child in fs.list(directory)):
        fs.delete(directory, recursive=True)


def _refuse_links(fs: FileSystem, root: str | None, location: str, final: str) -> None:
    """A StorageError naming a symbolic link on the way from the cluster `root` (else from the table's location)
    down to the partition's directory: files moved there would land wherever the link leads."""
    base = root if root is not None and is_below(location, root) else parent_of(location)
    fs.refuse_links_below(base, final)


def import_partition(spark: SparkSession, catalog: Catalog, fs: FileSystem, directory: str, into: PartitionAddress,
                     *, options: ImportOptions = ImportOptions(), guard: Guard = no_guard) -> ImportResult:
    """Import the export in `directory` as the partition `into` (its spec by default the exported values) in
    `catalog`, on the file system `fs` (which also reads `directory`), as `options` say. `guard` is called right
    before the rename into place and before the partition switch (the caller's lease check): when it raises, what
    was done is undone and nothing is published."""
    with catalog.pinned_tables():  # the target table is read once, not at each metastore call
        return _PartitionImport(spark, catalog, fs, normalize_uri(directory), into, options, guard).run()


@dataclass(frozen=True)
class _PartitionImport:
    """One call of import_partition."""

    spark: SparkSession
    catalog: Catalog
    fs: FileSystem
    directory: str
    into: PartitionAddress
    options: ImportOptions
    guard: Guard

    def run(self) -> ImportResult:
        began = time.perf_counter()
        spark, catalog, fs, directory, options = self.spark, self.catalog, self.fs, self.directory, self.options
        metadata = read_export(fs, directory)
        exported = metadata.table
        wanted = dict(self.into.spec) if self.into.spec is not None else dict(metadata.partition)
        _check_keys(wanted, exported)
        data_dir = join(directory, DATA_DIR)
        data_present = fs.exists(data_dir)
        if data_present:
            problem = file_problem(fs, data_dir, metadata, directory) or (
                checksum_problem(spark, data_dir, metadata, directory) if options.checksums else None)
            if problem:
                raise StorageError(problem)
        target, created = target_table(catalog, self.into.database, self.into.table, exported, directory,
                                       options.table_location)
        if target.location is None:
            raise StorageError(f"The table {target.qualified_name} in {catalog.description} has no location: cannot "
                               "place the partition's files.")
        values = full_spec(target.info, wanted)
        name = partition_name(values)
        location = normalize_uri(target.location)
        canonical = canonical_directory(location, name)
        versioned = versioned_directory(location, metadata.export_id, name)
        current = catalog.partition_location(target.database, target.name, values)
        current = normalize_uri(current) if current else None
        if current is not None and current == versioned and not data_present:
            final = versioned  # a rerun of this import: its files are where the interrupted run put them
        else:
            final = next_directory(current, canonical, versioned)
        _refuse_links(fs, options.cluster_root, location, final)

        with Publication(fs, self.guard) as publication:
            if data_present:
                if fs.exists(final):
                    fs.delete(final, recursive=True)  # no partition points to it: a leftover of an interrupted run
                moved = self._place(publication, data_dir, final, metadata, location)
            else:
                # An earlier run of this import moved the files and was interrupted: they are where it put them,
                # registered already (the current location) or not yet.
                final = self._found_in_place(metadata, current, final)
                if not final:
                    raise StorageError(f"The export in {directory} has no {DATA_DIR}/ folder and its files are not in "
                                       f"the partition {name} of {target.qualified_name}: it was imported and replaced "
                                       "since, or it is damaged; export the partition again.")
                moved = True
            switch(publication, catalog, target.database, target.name, values, current, final)
            publication.after(lambda: _clean_up(fs, directory, location, canonical, current, final,
                                                moved and not options.keep_export
                                                and not options.keep_consumed_export))

        previous = current if current is not None and current != final else None
        kept = previous is not None and not under(previous, location)
        return ImportResult(target.database, target.name, values, final, directory, metadata.export_id,
                            len(metadata.files), metadata.total_bytes, time.perf_counter() - began, created,
                            current is not None, moved, previous, kept, resumed=not data_present)

    def _found_in_place(self, metadata: ExportMetadata, *places: str | None) -> str:
        """The first of `places` that holds the export's files (the size and checksum checks passed): where an
        interrupted run of this import put them; "" when none does."""
        for place in dict.fromkeys(p for p in places if p):
            if self.fs.exists(place) and file_problem(self.fs, place, metadata, self.directory) is None and (
                    not self.options.checksums
                    or checksum_problem(self.spark, place, metadata, self.directory) is None):
                return place
        return ""

    def _place(self, publication: Publication, data_dir: str, final: str, metadata: ExportMetadata,
               table_location: str) -> bool:
        """Put the export's files at `final` (which does not exist) as a step of `publication`; True when they were
        moved, not copied."""
        spark, fs, keep_export, directory = self.spark, self.fs, self.options.keep_export, self.directory
        if not keep_export and _root(data_dir) == _root(final):
            try:
                publication.move(data_dir, final)
                return True
            except StorageError:
                if not fs.exists(data_dir) or fs.exists(final):
                    raise
                # This file system cannot move it there (another volume, an encryption zone): copy instead.
        staging = join(table_location, f"{STAGING_PREFIX}{metadata.export_id}")
        if fs.exists(staging):
            fs.delete(staging, recursive=True)  # a leftover of an interrupted run
        fs.mkdirs(staging)  # an empty partition still gets its folder
        listed = {item.relative_path: item.status for item in data_files(fs, data_dir)}
        tasks = [CopyTask(join(data_dir, item.path), join(staging, item.path), item.size,
                          listed[item.path].modification_time) for item in metadata.files]
        for item, copied in zip(metadata.files, copy_files(spark, fs, tasks), strict=True):
            if copied.crc32c != item.crc32c:
                fs.delete(staging, recursive=True)
                raise StorageError(f"{copied.source} has CRC32C {copied.crc32c} where the export's list says "
                                   f"{item.crc32c}: the export in {directory} is damaged; export the partition again.")
        publication.move(staging, final)
        return False

