"""Publishing a new version of a Hive partition without readers ever seeing a partial one.

The files of the new version are put in a directory no partition points to yet, then the partition is added
(or its location switched, one metastore call: a step of a core/storage/publish.py Publication, checked by its
guard and undone with it), then the replaced directory is deleted. The directory is the
table's location plus the partition's name (`ds=2026-11-21/region=eu`); replacing a partition that lives
there puts the new files under `<table location>/.toolkit-partitions/<version>/<partition name>`, and the next
replacement goes back to the plain place. Hidden folders are skipped by Hive's and Spark's readers and by
MSCK REPAIR. Used by the Hive import and by the process runner's table outputs.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem, normalize_uri
from toolkit.core.storage.publish import Publication
from toolkit.core.storage.tree import join
from toolkit.uris import is_below

VERSIONS_DIR = ".toolkit-partitions"


def under(path: str, folder: str) -> bool:
    """`path` lies strictly below `folder` (never through a `.` or `..` segment)."""
    return is_below(path, folder)


def canonical_directory(table_location: str, name: str) -> str:
    return join(table_location, name)


def versioned_directory(table_location: str, version: str, name: str) -> str:
    return join(table_location, f"{VERSIONS_DIR}/{version}/{name}")


def next_directory(current: str | None, canonical: str, versioned: str) -> str:
    """Where a new version goes: the plain place, unless the partition lives there now."""
    return versioned if current is not None and normalize_uri(current) == canonical else canonical


def switch(publication: Publication, catalog: Catalog, database: str, table: str, values: Mapping[str, str],
           current: str | None, final: str) -> None:
    """As a step of `publication` (after its guard): add the partition at `final`, or point the existing one
    there, one metastore call either way; undone by dropping the new partition (its files kept: the
    publication moves them back) or pointing it back to `current`."""
    if current is None:
        publication.step(lambda: catalog.add_partition(database, table, values, final),
                         lambda: _drop_entry(catalog, database, table, values))
    elif normalize_uri(current) != final:
        publication.step(lambda: catalog.alter_partition_location(database, table, values, final),
                         lambda: catalog.alter_partition_location(database, table, values, current))


def _drop_entry(catalog: Catalog, database: str, table: str, values: Mapping[str, str]) -> None:
    catalog.drop_partition(database, table, values, delete_data=False)


def remove_unreferenced(fs: FileSystem, stale: str, table_location: str) -> None:
    """Delete a directory no partition points to any more (a replaced version: its whole version folder);
    only below the table's location: data elsewhere belongs to someone else."""
    if not under(stale, table_location):
        return
    versions = join(table_location, VERSIONS_DIR)
    if under(stale, versions):
        stale = join(versions, normalize_uri(stale)[len(versions) + 1:].split("/", 1)[0])
    if fs.exists(stale):
        fs.delete(stale, recursive=True)
