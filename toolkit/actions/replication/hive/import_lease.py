"""A partition import under the lease of that partition in the target cluster's ledger: hive_import.py and the
import step of a table replication both take it, so two imports of one partition never interleave their
renames and metastore calls. A caller refused while another run imports is told who (exit 5); one that gets
the lease after another import consumed the same export finds the partition holding the export's files: done
(exit 4)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING

from toolkit.actions.replication.hive.importer import ImportOptions, ImportResult, file_problem, import_partition
from toolkit.actions.replication.hive.metadata import METADATA_NAME, ExportMetadata
from toolkit.core.entities.model import Cluster
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.run_locks import HeldLease, holding
from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS, Ledger
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_records import PartitionAddress
from toolkit.core.storage.filesystem import FileSystem
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.tree import join
from toolkit.errors import SkippedError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.actions.replication.hive.import_plan import ImportPlan


def import_lease(fs: FileSystem, cluster: Cluster, partition: PartitionAddress, run_id: str,
                 lease_seconds: float = DEFAULT_LEASE_SECONDS) -> AbstractContextManager[HeldLease]:
    """The lease of `partition` (every key given) on `cluster`; BlockedError when a live run holds it."""
    if not partition.spec:
        raise ValueError(f"an import lease names every key of its partition of {partition.qualified_table}")
    name = partition_name(partition.spec)
    lock = Ledger.of(fs, cluster, lease_seconds=lease_seconds).import_lock(partition.database, partition.table, name)
    return holding(lock, run_id, f"import of the partition {name} of {partition.qualified_table} into cluster "
                                 f"'{cluster.name}'", LeaseDetails(partition=name))


def import_held(spark: SparkSession, catalog: Catalog, fs: FileSystem, cluster: Cluster, plan: ImportPlan,
                options: ImportOptions, lease: HeldLease) -> ImportResult:
    """import_partition as `plan` says, under the partition's `lease` (the caller's, from `import_lease`), no
    symbolic link followed on the way from the cluster's root to the partition; the plan's metadata is the export
    as the caller read it before. SkippedError when, by the time the lease is ours, another import consumed the
    export into the partition."""
    directory, partition = plan.source, plan.address
    if not fs.exists(join(directory, METADATA_NAME)) and _holds_export(catalog, fs, plan.metadata, directory,
                                                                         partition):
        raise SkippedError(f"The export in {directory} was imported into the partition {partition_name(plan.spec)} "
                           f"of {partition.qualified_table} by another run already: nothing to do.")
    return import_partition(spark, catalog, fs, directory, partition, guard=lease.check,
                            options=replace(options, cluster_root=cluster.write_endpoint))


def _holds_export(catalog: Catalog, fs: FileSystem, metadata: ExportMetadata, directory: str,
                  partition: PartitionAddress) -> bool:
    """The partition exists and holds exactly the export's files with their sizes."""
    database, table = partition.database, partition.table
    location = catalog.partition_location(database, table, dict(partition.spec or {})) \
        if catalog.table_exists(database, table) else None
    return location is not None and file_problem(fs, location, metadata, directory) is None
