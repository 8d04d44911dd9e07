"""The cores of Hive export and import for a table feed on a cluster, as `hive_export.py` and `hive_import.py`
run them and any other caller may: safemode and a suspended feed are checked here, before anything is read or
written, so that calling the core directly is as safe as calling the entrypoint."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.actions.replication.hive.export import ExportOrigin, ExportResult, export_partition
from toolkit.actions.replication.hive.feeds import FeedPartition, feed_partition, feed_table
from toolkit.actions.replication.hive.import_lease import import_held, import_lease
from toolkit.actions.replication.hive.import_plan import ImportPlan
from toolkit.actions.replication.hive.importer import ImportOptions, ImportResult, read_export, remove_consumed_export
from toolkit.actions.replication.hive.run_records import recorded
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.provenance import Provenance, provenance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_table
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.hive_transfers import HiveTransferRecord, hive_records
from toolkit.core.ledger.records import PublicationFacts, wall_clock_stamp
from toolkit.core.ledger.run_locks import HeldLease
from toolkit.core.ledger.store import Ledger
from toolkit.core.ledger.switches import require_running_allowed
from toolkit.core.storage.filesystem import FileSystem
from toolkit.core.storage.partition_names import partition_name
from toolkit.errors import SkippedError, UsageError
from toolkit.services.openlineage.facts import DatasetUse, InstanceUse, RunSubject
from toolkit.services.openlineage.run import Lineage
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, Lifecycle, failures_told, feed_lifecycle
from toolkit.services.runtime.lineage import recorded_fingerprint, watched
from toolkit.services.runtime.run_context import RunContext
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


HIVE_EXPORT = ActionKind(name="hive-export", script="hive_export", job="hive-export",
                         producer="hive-export")  # it writes no dataset event
HIVE_IMPORT = ActionKind(name="hive-import", script="hive_import", job="hive-import", producer="hive-import")


def run_hive_export(spark: SparkSession, call: FeedCall, destination: str, context: RunContext) -> ExportResult:
    """Export the instance of the call (a table feed's on its cluster), from the context's catalog, into the
    directory `destination`, in the lifecycle of every feed action (services/runtime/lifecycle.py: switches before
    anything is read, the instance's export lease, the failure notice). Lineage: one run of `hive-export.<feed>` reading
    the feed's dataset, writing the export folder's (none while the partition does not exist yet)."""
    feed, cluster, nominal, fs = call.feed, call.cluster, call.nominal, context.fs
    what = f"Hive export of the instance {call.instance} of feed '{feed.name}' on cluster '{cluster.name}'"
    with feed_lifecycle(call, context, lock=lambda ledger: ledger.hive_export_lock(feed.name, nominal),
                        what=what) as life:
        partition = feed_partition(feed, cluster, nominal)
        first = HiveTransferRecord(feed.name, cluster.name, call.instance, context.run_id, Status.RUNNING,
                                   wall_clock_stamp(context.clock.time()), partition.qualified_table, partition.name,
                                   destination)
        with recorded(hive_records(fs, life.ledger.layout, "hive-export", feed.name), first, context.clock,
                      life.lease):
            return _export(spark, life, partition, destination, context)


def _export(spark: SparkSession, life: Lifecycle, partition: FeedPartition, destination: str,
            context: RunContext) -> ExportResult:
    feed, cluster, nominal, fs = life.call.feed, life.call.cluster, life.call.nominal, context.fs
    catalog = context.require_catalog(feed.name, cluster.name)
    waiting = catalog.table_exists(partition.database, partition.table) and \
        catalog.partition_location(partition.database, partition.table, partition.spec) is None
    on = context.lineage.enabled and not waiting  # waiting for it (exit 3): a later call exports it
    run = life.run() if on else Lineage.off().run(RunSubject(HIVE_EXPORT.job, feed.name))
    read = [DatasetUse.at(feed, cluster, [nominal], {nominal: recorded_fingerprint(fs, feed, cluster, nominal)})] \
        if on else []
    with watched(run, read, [DatasetUse.folder(feed.name, destination, nominal)] if on else []):
        result = export_partition(spark, catalog, fs, partition.address, destination,
                                  origin=ExportOrigin(feed.name, cluster.name, nominal))
    if on:
        run.complete(read, [DatasetUse.folder(feed.name, result.directory, nominal, files=result.files,
                                              bytes=result.bytes)])
    return result


def plan_hive_import(fs: FileSystem, feed: Feed, cluster: Cluster, source: str, asked: datetime | None) -> ImportPlan:
    """The partition the export in `source` goes to: the feed's on `cluster` at the instance the export records
    (`asked`, when given, must be it), or the export's own values when it records none."""
    require_running_allowed(fs, cluster, "feed", feed.name)  # safemode (5) or suspended (4): nothing read
    uri = feed_table(feed, cluster)
    metadata = read_export(fs, source)
    if metadata.feed is not None and metadata.feed != feed.name:
        raise UsageError(f"{source} holds an export of the feed '{metadata.feed}', not of '{feed.name}': give the "
                         "feed it was exported for.")
    instance = metadata.instance_time or asked
    if asked is not None and metadata.instance_time is not None and asked != metadata.instance_time:
        raise UsageError(f"{source} holds the instance {format_timestamp(metadata.instance_time)} of "
                         f"'{feed.name}', not {format_timestamp(asked)}: leave --time out, or give the right export.")
    # The partition is the feed's on this cluster at the exported instance (its URI may differ from the
    # source's).
    spec = feed_partition(feed, cluster, instance).spec if instance is not None else dict(metadata.partition)
    return ImportPlan(source, metadata, instance, uri.database, uri.table, spec)


def run_hive_import(spark: SparkSession, repo: ConfigRepo, feed: Feed, cluster: Cluster, plan: ImportPlan,
                    context: RunContext, options: ImportOptions | None = None) -> ImportResult:
    """Import as `plan` and `options` say, into the context's catalog, under the partition's lease, then record
    the feed instance's dataset event. An import that finds the export consumed into the partition already
    (exit 4) writes the event when the run that imported it was killed before writing it. Lineage: one run of
    `hive-import.<feed>` reading the export folder's dataset, writing the feed's. The run and the event carry the
    definition of `feed` in `repo`, hashed once.

    An export of an instance is imported as a call of the lifecycle's (services/runtime/lifecycle.py: the instance on
    the feed's grid, exit 2, and inside its validity, exit 4, checked first; a failure told to the feed's
    `notification` through the context's notifier, with the command that reruns it). An export of no instance (a
    partition by its values) names no instance to tell about: its failure is on the status line alone."""
    options = options or ImportOptions()
    if plan.time is None:
        return _import(spark, feed, cluster, plan, context, options, provenance(feed, Path(repo.root), repo.revision))
    call = FeedCall.of(HIVE_IMPORT, repo, feed, cluster, plan.time, ("--from", plan.source))
    with failures_told(call, context.notifier, context.run_id):
        return _import(spark, feed, cluster, plan, context, options, call.definition)


def _import(spark: SparkSession, feed: Feed, cluster: Cluster, plan: ImportPlan, context: RunContext,
            options: ImportOptions, definition: Provenance) -> ImportResult:
    fs, lineage = context.fs, context.lineage
    require_running_allowed(fs, cluster, "feed", feed.name)  # safemode (5) or suspended (4): nothing touched
    catalog = context.require_catalog(feed.name, cluster.name)
    where = feed_locations(feed, cluster)
    assert where.table is not None  # plan_hive_import checked the feed is a table on the cluster
    t = plan.time or where.table.parse(plan.spec, where.zone)
    with import_lease(fs, cluster, plan.address, context.run_id, context.lease_seconds) as lease, \
            _recorded_import(feed, cluster, plan, options, context, lease):
        run = lineage.run(RunSubject(HIVE_IMPORT.job, feed.name, nominal=t,
                                     instance=format_timestamp(t) if t else None), definition=definition)
        read = [DatasetUse.folder(feed.name, plan.source, t)] if lineage.enabled else []
        with watched(run, read, [_partition_use(feed, cluster, plan, t)] if lineage.enabled else []):
            try:
                result = import_held(spark, catalog, fs, cluster, plan, replace(options, keep_consumed_export=True),
                                     lease)
            except SkippedError:
                record_import(feed, cluster, plan.spec, context, definition, unless_recorded=True)
                raise
            # A run that found the files in place finishes a killed one, which may have recorded the event already.
            fingerprint = record_import(feed, cluster, plan.spec, context, definition, unless_recorded=result.resumed)
            if result.moved and not options.keep_export:
                # Only now: a run killed before the event finds the export's _metadata.json, and its rerun the event.
                remove_consumed_export(fs, plan.source)
            if result.resumed and result.replaced and result.previous_location is None:
                raise SkippedError(f"The export in {plan.source} was imported into the partition "
                                   f"{result.partition_name} of {plan.database}.{plan.table} by another run already: "
                                   "nothing to do.")
        if lineage.enabled:
            run.complete(read, [_partition_use(feed, cluster, plan, t, fingerprint, files=result.files,
                                               bytes=result.bytes)])
    return result


def _recorded_import(feed: Feed, cluster: Cluster, plan: ImportPlan, options: ImportOptions, context: RunContext,
                     lease: HeldLease) -> AbstractContextManager[None]:
    """The import's record of the instance its export names (none for an export of no instance: its rerun is the
    same call again), with the options a rerun passes again."""
    if plan.time is None:
        return nullcontext()
    first = HiveTransferRecord(feed.name, cluster.name, format_timestamp(plan.time), context.run_id, Status.RUNNING,
                               wall_clock_stamp(context.clock.time()), f"{plan.database}.{plan.table}",
                               partition_name(plan.spec), plan.source, keep_export=options.keep_export,
                               checksums=options.checksums, table_location=options.table_location)
    records = hive_records(context.fs, context.ledger(cluster).layout, "hive-import", feed.name)
    return recorded(records, first, context.clock, lease)


def _partition_use(feed: Feed, cluster: Cluster, plan: ImportPlan, t: datetime | None,
                   fingerprint: Fingerprint | None = None, **written: Any) -> DatasetUse:
    """The feed's dataset with the partition imported: its instance, or (an export of no instance) the
    partition by its values."""
    if t is not None:
        return DatasetUse.at(feed, cluster, [t], {t: fingerprint}, **written)
    location = f"{plan.database}.{plan.table}/" + "/".join(f"{key}={value}" for key, value in plan.spec.items())
    return DatasetUse.of(feed, cluster, [InstanceUse("", location, fingerprint)], **written)


def record_import(feed: Feed, cluster: Cluster, spec: Mapping[str, str], context: RunContext, definition: Provenance,
                  unless_recorded: bool = False) -> Fingerprint | None:
    """The `hive-import` event of the imported partition, naming the importing run (the context's: its catalog, file
    system and run id) and `definition`, when it is an instance of the feed (its values parse to an instance time
    by the feed's table URI); the fingerprint it recorded."""
    catalog, fs = context.require_catalog(feed.name, cluster.name), context.fs
    where = feed_locations(feed, cluster)
    assert where.table is not None  # plan_hive_import checked the feed is a table on the cluster
    t = where.table.parse(spec, where.zone)
    if t is None:
        return None
    state = probe_table(catalog, fs, where, [t])[t]
    if not state.available:
        return None
    fingerprint = state.fingerprint
    Ledger.of(fs, cluster).record_publication(PublicationFacts(feed.name, cluster.name, t, producer="hive-import",
                                                               run_id=context.run_id, location=where.event_location(t),
                                                               fingerprint=fingerprint,
                                                               definition=definition), unless_recorded=unless_recorded)
    return fingerprint
