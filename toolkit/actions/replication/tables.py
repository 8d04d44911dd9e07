"""Replication of a table feed's partition: export on the source (its metastore read through a Thrift client
in this JVM, its files copied straight into a staging folder on the target's file system, `_metadata.json`
last), then import on the target (files moved into the partition's place, and only then the partition added
or switched in the target's metastore: readers never see half a partition). The import holds the partition's
lease in the target's ledger (import_lease.py), as hive_import.py does.

A partition whose files on the target are the source's (same relative paths, lengths and modification
times; the copy keeps the source's mtimes) is up to date and left alone. The import trusts the CRC32C
checksums the copier computed while it wrote this run's export (sizes are checked all the same). With `staged`,
the export is not made here: the folder an earlier `hive_export.py` on the source wrote is imported, its
checksums read again (for targets that cannot reach the source's metastore).

With the feed's data-quality gate (target_gate.py), the export's files are checked on the target before the
import: a `block` failure imports nothing and deletes this run's export (an export given with `staged` is the
caller's, and stays)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.actions.replication.files import FolderOutcome
from toolkit.actions.replication.hive.export import ExportOrigin, export_partition
from toolkit.actions.replication.hive.feeds import FeedPartition, feed_partition
from toolkit.actions.replication.hive.import_lease import import_lease
from toolkit.actions.replication.hive.importer import ImportOptions, import_partition, read_export
from toolkit.actions.replication.hive.metadata import DATA_DIR
from toolkit.actions.replication.pullers import cluster_root
from toolkit.actions.replication.target_gate import TargetGate
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.availability import InstanceState, probe_table
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_factory import catalog_for
from toolkit.core.storage.catalog_records import TableDescription
from toolkit.core.storage.filesystem import TreeDigest
from toolkit.core.storage.publish import Guard, all_guards, no_guard
from toolkit.core.storage.tree import join
from toolkit.planners.replication import Source
from toolkit.services.runtime.run_context import RunContext

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class TablePuller:
    """Partitions of a table feed, one metastore client per cluster (closed by `close`)."""

    def __init__(self, spark: SparkSession, feed: Feed, target: Cluster, sources: Sequence[Source],
                 context: RunContext, gate: TargetGate | None = None, staged: str | None = None) -> None:
        """`context`: the call's file system, and the run id and lease length of the partition's import lease."""
        self.spark, self.feed, self.target, self.staged, self.gate = spark, feed, target, staged, gate
        self.fs, self.run_id, self.lease_seconds = context.fs, context.run_id, context.lease_seconds
        self._catalogs: dict[str, Catalog] = {}
        self._found: dict[tuple[str, datetime], str] = {}  # source partitions' locations seen by missing()
        self.target_catalog = self._catalog(target)
        self.source_catalogs = {} if staged else {source.cluster.name: self._catalog(source.cluster)
                                                  for source in sources}

    def _catalog(self, cluster: Cluster) -> Catalog:
        if cluster.name not in self._catalogs:
            self._catalogs[cluster.name] = catalog_for(self.spark, cluster.registry_endpoint)
        return self._catalogs[cluster.name]

    def close(self) -> None:
        for catalog in self._catalogs.values():
            catalog.close()

    def _partitions(self, source: Source, instance: datetime) -> tuple[FeedPartition, FeedPartition]:
        return feed_partition(self.feed, source.cluster, instance), feed_partition(self.feed, self.target, instance)

    def places(self, source: Source, instance: datetime) -> tuple[str, str]:
        mine, theirs = self._partitions(source, instance)
        return (f"{source.cluster.name}:{mine.qualified_table}/{mine.name}",
                f"{self.target.name}:{theirs.qualified_table}/{theirs.name}")

    def missing(self, source: Source, instance: datetime) -> str | None:
        if self.staged:
            return None if self.fs.exists(self.staged) else f"the export folder {self.staged} does not exist"
        mine = self._partitions(source, instance)[0]
        catalog = self.source_catalogs[source.cluster.name]
        location = catalog.partition_location(mine.database, mine.table, mine.spec)
        if location is not None:
            self._found[(source.cluster.name, instance)] = location  # pull() needs it next
            return None
        return f"the partition {mine.name} of {mine.qualified_table} does not exist in {catalog.description}"

    def pull(self, source: Source, instance: datetime, guard: Guard = no_guard) -> FolderOutcome:
        mine, theirs = self._partitions(source, instance)
        if self.staged is None:
            here = self._found.pop((source.cluster.name, instance), None) or self.source_catalogs[
                source.cluster.name].partition_location(mine.database, mine.table, mine.spec)
            there = (self.target_catalog.partition_location(theirs.database, theirs.table, theirs.spec)
                     if self.target_catalog.table_exists(theirs.database, theirs.table) else None)
            if here is not None and there is not None:
                unchanged = self.fs.same_files(here, there, ignored_prefixes=["_", "."])  # as the export reads
                if unchanged is not None:
                    return FolderOutcome(files_skipped=unchanged)
        folder = self.staged or self._staging(instance, source)
        copied = None
        if self.staged is None:
            copied = export_partition(self.spark, self.source_catalogs[source.cluster.name], self.fs, mine.address,
                                      folder, origin=ExportOrigin(self.feed.name, source.cluster.name, instance))
        quality = self._check(instance, folder, theirs, copied.metadata.table if copied else None)
        exported = FolderOutcome(files_copied=copied.files if copied else 0, bytes_copied=copied.bytes if copied else 0,
                                 copy_seconds=copied.seconds if copied else 0.0, quality=quality)
        if exported.blocked:
            if self.staged is None:
                self.fs.delete(folder, recursive=True)  # this run's export: never imported
            return exported
        # An export made by this run was checked by the copier as it was written (lengths, CRC32C on the way);
        # only a staged export, which came by a copy of someone else's, is read again for its checksums.
        with import_lease(self.fs, self.target, theirs.address, self.run_id, self.lease_seconds) as lease:
            checked = ImportOptions(checksums=self.staged is not None)
            imported = import_partition(self.spark, self.target_catalog, self.fs, folder, theirs.address,
                                        options=checked, guard=all_guards(guard, lease.check))
        return FolderOutcome(files_copied=imported.files, bytes_copied=imported.bytes,
                             copy_seconds=(copied.seconds if copied else 0.0) + imported.seconds, published=True,
                             quality=quality)

    def _check(self, instance: datetime, folder: str, theirs: FeedPartition,
               table: TableDescription | None) -> tuple[GateResult, ...]:
        """The feed's gate on the export's files in `folder`, before the import; nothing to check when an
        interrupted import moved them into the partition's place already (that run checked them first)."""
        data = join(folder, DATA_DIR)
        if self.gate is None or not self.fs.exists(data):
            return ()
        described = table or read_export(self.fs, folder).table
        return self.gate.partition(instance, described, data, theirs.qualified_table, theirs.spec)

    def _staging(self, instance: datetime, source: Source) -> str:
        """A folder of the target's staging location for this instance's export (consumed by the import)."""
        staging = self.target.location("staging") or "/feed-toolkit/staging"
        name = f"{instance:%Y%m%dT%H%MZ}-{source.cluster.name}"
        return join(cluster_root(self.target), f"{staging.strip('/')}/replication/{self.feed.name}/{name}")

    def finish(self, instance: datetime, every_source: Sequence[Source], changed: bool,
               guard: Guard = no_guard) -> bool:
        return False  # a partition is its own availability: added to the metastore only when complete

    def on_target(self, instance: datetime, unchanged: TreeDigest | None = None) -> InstanceState:
        """The partition's state, probed: its fingerprint holds its create time, which no pull digests."""
        return probe_table(self.target_catalog, self.fs, feed_locations(self.feed, self.target), [instance])[instance]
