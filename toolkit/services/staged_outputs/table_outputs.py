"""A table feed's partition written by a run (a process's workflow, a database import): the writer fills a
partition of a staging table, and it is published as the partition of the feed's table only when the attempt
succeeded.

Before the workflow: an EXTERNAL staging table `<table>__toolkit_<instance>` LIKE the feed's table (same
columns, partition keys and format), located in a hidden folder under the table's location, so that the
files end up on the table's file system. The workflow sees its name (`ctx.outputs[name].table`, and Falcon's
`falcon_output_table`), so `INSERT OVERWRITE TABLE ${falcon_output_database}.${falcon_output_table}
PARTITION (${falcon_output_dataout_partitions}) ...` keeps working. After it: the staging partition's
directory is moved to where the new version of the feed's partition goes and the partition is added or
switched there in one metastore call (core/storage/partition_versions.py), then the staging table is dropped.
A failed attempt drops the staging table and its folder: readers of the feed's table never see anything.
The feed's table must exist: the runner publishes partitions, it does not design tables.
"""

from __future__ import annotations

from contextlib import nullcontext

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.instances.output_targets import TableOutputTarget
from toolkit.core.ledger.records import PublishedOutput
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem, normalize_uri
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.partition_specs import full_spec
from toolkit.core.storage.partition_versions import (
    canonical_directory,
    next_directory,
    remove_unreferenced,
    switch,
    versioned_directory,
)
from toolkit.core.storage.publish import Publication
from toolkit.core.storage.tree import data_files, join
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.context import TableOutput
from toolkit.services.staged_outputs.file_outputs import NothingWrittenError

STAGING_FOLDER = ".toolkit-staging-"


def _table_location(catalog: Catalog, target: TableOutputTarget) -> str:
    if not catalog.table_exists(target.database, target.table):
        raise UsageError(f"The table {target.qualified_table} of output '{target.name}' (feed '{target.feed.name}') "
                         f"does not exist in {catalog.description}: create it (columns, partition keys, format); "
                         "the process runner publishes its partitions.")
    info = catalog.table_info(target.database, target.table)
    if info.location is None:
        raise UsageError(f"The table {target.qualified_table} has no location: the runner cannot place partitions.")
    return normalize_uri(info.location)


def _staging_folder(location: str, target: TableOutputTarget) -> str:
    return join(location, f"{STAGING_FOLDER}{target.key}")


def prepare(catalog: Catalog, fs: FileSystem, target: TableOutputTarget) -> TableOutput:
    """A fresh staging table for this attempt (a killed attempt's left-overs dropped first)."""
    with catalog.pinned_tables():  # the feed's table is read once for the whole preparation
        location = _table_location(catalog, target)
        _discard_at(catalog, fs, target, location)
        catalog.create_table_like(target.database, target.table, target.database, target.staging_table,
                                  _staging_folder(location, target))
    return TableOutput(target.database, target.staging_table, target.partition)


def _staged(catalog: Catalog, fs: FileSystem, target: TableOutputTarget) -> tuple[dict[str, str], str | None]:
    """The partition's full values, and the directory the workflow wrote it to (None when it wrote nothing)."""
    values = full_spec(catalog.table_info(target.database, target.table), target.partition)
    staged = catalog.partition_location(target.database, target.staging_table, values)
    return values, normalize_uri(staged) if staged is not None and fs.exists(staged) else None


def staged_partition(catalog: Catalog, fs: FileSystem, target: TableOutputTarget) -> tuple[dict[str, str], str, str]:
    """What a quality gate reads: the partition's values, the directory the workflow wrote and the table's storage
    format (NothingWrittenError when it wrote nothing)."""
    values, staged = _staged(catalog, fs, target)
    if staged is None:
        raise NothingWrittenError(_nothing_written(target, values))
    return values, staged, catalog.table_info(target.database, target.staging_table).format


def _nothing_written(target: TableOutputTarget, values: dict[str, str]) -> str:
    return (f"The workflow wrote nothing to output '{target.name}' (feed '{target.feed.name}', "
            f"{format_timestamp(target.time)}): it should insert into {target.database}.{target.staging_table} "
            f"PARTITION ({', '.join(f'{k}={v!r}' for k, v in values.items())}), given as ctx.outputs"
            f"['{target.name}'] and falcon_output_table.")


def missing_partition(catalog: Catalog, fs: FileSystem, target: TableOutputTarget) -> str | None:
    """Why the output cannot be published (one sentence), or None: checked for every output before any is."""
    values, staged = _staged(catalog, fs, target)
    return None if staged is not None else _nothing_written(target, values)


def publish(catalog: Catalog, fs: FileSystem, target: TableOutputTarget, version: str,
            publication: Publication | None = None) -> PublishedOutput:
    """The staging partition's files become the feed table's partition; the staging table goes. `version`
    names the partition's version folder when it replaces one: unique per attempt and output. Within
    `publication` (the attempt's: undone with the other outputs when one fails; the replaced version and the
    staging table go at its commit), or on its own."""
    with catalog.pinned_tables():  # the feed's table is read once for the whole publication
        values, staged = _staged(catalog, fs, target)
        if staged is None:
            raise NothingWrittenError(_nothing_written(target, values))
        location = _table_location(catalog, target)
        name = partition_name(values)
        current = catalog.partition_location(target.database, target.table, values)
        canonical = canonical_directory(location, name)
        final = next_directory(current, canonical, versioned_directory(location, version, name))
        if fs.exists(final):
            fs.delete(final, recursive=True)  # no partition points to it: a leftover of an interrupted attempt
        with Publication(fs) if publication is None else nullcontext(publication) as steps:
            steps.move(staged, final)
            switch(steps, catalog, target.database, target.table, values, current, final)
            steps.after(lambda: _replaced(catalog, fs, target, location, current, final))
    files = data_files(fs, final)
    return PublishedOutput(target.name, target.feed.name, format_timestamp(target.time), final, len(files),
                           sum(item.status.length for item in files), replaced=current is not None,
                           table=target.qualified_table, partition=dict(target.partition))


def _replaced(catalog: Catalog, fs: FileSystem, target: TableOutputTarget, location: str, current: str | None,
              final: str) -> None:
    """Once published: the replaced version's directory and the staging table go."""
    if current is not None and normalize_uri(current) != final:
        remove_unreferenced(fs, normalize_uri(current), location)
    _discard_at(catalog, fs, target, location)


def discard(catalog: Catalog, fs: FileSystem, target: TableOutputTarget) -> None:
    """Drop the staging table and delete its folder (nothing of it is published)."""
    _discard_at(catalog, fs, target, _table_location(catalog, target))


def _discard_at(catalog: Catalog, fs: FileSystem, target: TableOutputTarget, location: str) -> None:
    catalog.drop_table(target.database, target.staging_table)
    folder = _staging_folder(location, target)
    if fs.exists(folder):
        fs.delete(folder, recursive=True)
