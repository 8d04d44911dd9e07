"""The retention action for one feed on one cluster at one nominal time.

Order: check the call (feed on cluster, retention policy, validity, templates), plan every templated
location (and the table), then evict (unless a dry run), then write the report. Nothing reads the wall
clock: the nominal time is passed in. Planning, evicting and reporting happen under the cluster ledger's lease
for the feed: a second caller is refused (exit 5, naming the holder), one that comes after the first finished
finds nothing left to evict, and the lease is checked before each location is evicted. A dry run takes no
lease. Lineage: one run of `retention.<feed>` per call that holds the lease (lineage_uses.py); a dry run emits
nothing. The cluster's root is protected on the file system (no delete of it or above it), and symbolic links
met on the walk are left in place and listed in the report (`links_left`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.actions.retention.lineage_uses import evicted_uses
from toolkit.actions.retention.tables import drop_planned, expired_partitions, plan_drops
from toolkit.core.el.templates import CatalogTemplate
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_table
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.instances.retention_cadence import retention_end
from toolkit.core.ledger.layout import require_apart_from_working
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.retention_runs import EvictedItem, RefusedItem, RetentionRecord
from toolkit.core.ledger.run_locks import HeldLease, describe_holder
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.action import Eviction
from toolkit.extensions.retention_actions.registry import eviction_for
from toolkit.planners.retention.cutoff import cutoff
from toolkit.planners.retention.feed_plans import FeedPlans, feed_plans
from toolkit.services.openlineage.facts import DatasetUse
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall, Lifecycle, feed_checks
from toolkit.services.runtime.lineage import watched
from toolkit.services.runtime.run_context import RunContext
from toolkit.services.runtime.run_record import record_path, write_record
from toolkit.statuses import Status


@dataclass
class RetentionResult:
    """What the run did; `status` is SUCCEEDED, SKIPPED (exit 4) or DRY_RUN."""

    status: Status
    feed: str
    cluster: str
    time: datetime
    cut_off: datetime | None = None
    reason: str | None = None
    evicted: list[EvictedItem] = field(default_factory=list)
    skipped_locations: list[str] = field(default_factory=list)
    refused: list[RefusedItem] = field(default_factory=list)  # expired, kept: another feed's, or archive differs
    links_left: list[str] = field(default_factory=list)
    bytes_freed: int = 0
    directories_removed: int = 0
    elapsed_seconds: float = 0.0
    report: str | None = None

    def counters(self) -> dict[str, object]:
        return {"instances_evicted": len(self.evicted), "instances_refused": len(self.refused),
                "bytes_freed": self.bytes_freed,
                "directories_removed": self.directories_removed, "elapsed_seconds": round(self.elapsed_seconds, 3)}

    def record(self, run_id: str, action_taken: str, took_over: str | None) -> RetentionRecord:
        """The run's record (toolkit/core/ledger/retention_runs.py), once it has evicted."""
        assert self.cut_off is not None  # set before anything is evicted
        return RetentionRecord(self.feed, self.cluster, format_timestamp(self.time), run_id,
                               cut_off=format_timestamp(self.cut_off), action_taken=action_taken,
                               evicted=self.evicted, refused=self.refused, skipped_locations=self.skipped_locations,
                               links_left=self.links_left, instances_evicted=len(self.evicted),
                               instances_refused=len(self.refused), bytes_freed=self.bytes_freed,
                               directories_removed=self.directories_removed,
                               elapsed_seconds=round(self.elapsed_seconds, 3), took_over=took_over)


RETENTION = ActionKind("retention", "retention", "retention", "retention", on_instance=False)


def run_retention(repo: ConfigRepo, feed_name: str, cluster_name: str, nominal: datetime, context: RunContext, *,
                  dry_run: bool = False, once: bool = False) -> RetentionResult:
    """`retain` the call of `feed_name` on `cluster_name` at `nominal`."""
    return retain(FeedCall.of(RETENTION, repo, repo.feed(feed_name), repo.cluster(cluster_name), nominal), context,
                  dry_run=dry_run, once=once)


def retain(call: FeedCall, context: RunContext, *, dry_run: bool = False, once: bool = False) -> RetentionResult:
    """Evict the instances of the call's feed on its cluster that are expired at its time, through `context` (a
    table feed needs its catalog), in the lifecycle of every feed action (services/runtime/lifecycle.py: switches,
    lease, lineage run and events carrying the definition, failure notice); a `dry_run` takes no lease and only says
    what it would evict. `once`: a record of the time found once the lease is held means another call retained it
    meanwhile (SKIPPED; a call for a whole cluster checks the records before it takes the leases)."""
    began = time.perf_counter()
    fs, feed, cluster, nominal = context.fs, call.feed, call.cluster, call.nominal
    on_cluster = require_on_cluster(feed, cluster.name)
    require_apart_from_working(feed, cluster)
    if on_cluster.retention is None:
        raise UsageError(f"The feed '{feed.name}' has no retention on cluster '{cluster.name}': add "
                         "clusters[].retention.limit (e.g. days(90)) to evict its old instances.")
    if cluster.write_endpoint is None:
        raise UsageError(f"The cluster '{cluster.name}' has no write interface: retention needs the root of its "
                         "file system (interfaces.write.endpoint).")
    eviction = eviction_for(feed, cluster)  # UsageError (exit 2) for an action refused, before anything is touched
    zone = resolve_zone(feed.timezone)
    result = RetentionResult(Status.SUCCEEDED, feed.name, cluster.name, nominal)
    end, last_useful = on_cluster.validity.end, retention_end(feed, on_cluster)
    with feed_checks(call, context) as checked:  # safemode (5) or suspended (4): nothing touched
        fs.protect(cluster.write_endpoint)  # the root spelled plainly: the switches' paths checked it (exit 2)
        if nominal >= last_useful:
            result.status = Status.SKIPPED
            kept = "" if last_useful == end else f", and its instances are kept until {format_timestamp(last_useful)}"
            result.reason = (f"{format_timestamp(nominal)} is after the validity of feed '{feed.name}' on cluster "
                             f"'{cluster.name}' (it ends {format_timestamp(end)}{kept})")
            return result
        result.cut_off = cutoff(nominal, on_cluster.retention.limit, zone)
        if dry_run:
            _retain(_Retention(call, zone, fs, context.catalog, None, context.run_id, eviction), result, began)
            return result
        with checked.leased(lambda ledger: ledger.retention_lock(feed.name),
                            f"retention of feed '{feed.name}' on cluster '{cluster.name}'",
                            LeaseDetails(time=format_timestamp(nominal))) as life:
            done = record_path(cluster, "retention", feed.name, nominal) if once else None
            if done is not None and fs.status(done) is not None:
                result.status = Status.SKIPPED
                result.reason = (f"feed '{feed.name}' was retained at {format_timestamp(nominal)} on cluster "
                                 f"'{cluster.name}' by another call while this one waited (its record: {done})")
                return result
            run = life.run()
            with watched(run, (), [DatasetUse.at(feed, cluster, [])] if context.lineage.enabled else []):
                _retain(_Retention(call, zone, fs, context.catalog, life.lease, context.run_id, eviction,
                                   _Events(life)), result, began)
            if context.lineage.enabled:
                run.complete((), evicted_uses(feed, cluster, result.evicted))
    return result


@dataclass(frozen=True)
class _Retention:
    """One retention call, checked: the feed on the cluster, its time zone, what it reads and evicts with."""

    call: FeedCall
    zone: ZoneInfo
    fs: FileSystem
    catalog: Catalog | None  # the cluster's metastore, for a table feed
    lease: HeldLease | None  # None: a dry run, which evicts nothing
    run_id: str
    eviction: Eviction | None  # how a file feed's expired instances go (delete, archive...)
    events: _Events | None = None  # None: a dry run, which records nothing

    @property
    def feed(self) -> Feed:
        return self.call.feed

    @property
    def cluster(self) -> Cluster:
        return self.call.cluster


def _retain(call: _Retention, result: RetentionResult, began: float) -> None:
    """Plan and evict (the lease checked before each eviction; a dry run holds none and evicts nothing), report."""
    repo, feed, cluster, fs, lease, eviction = call.call.repo, call.feed, call.cluster, call.fs, call.lease, \
        call.eviction
    assert result.cut_off is not None and cluster.write_endpoint is not None  # retain checked both
    table = feed.table_on(cluster.name)
    events = call.events
    if events is not None:
        events.finish_pending(fs, call.catalog)
    if table is not None:
        _evict_table(call, result, CatalogTemplate(table), events)
    planned = (FeedPlans((), (), ()) if table is not None else
               feed_plans(repo, feed, cluster, fs, call.zone, result.cut_off))
    result.skipped_locations += planned.undated
    result.refused += [RefusedItem(kind, format_timestamp(item.time), item.path,
                                   f"{item.other_path}, an instance of feed '{item.feed}', is in, is or holds this "
                                   "path; give each feed a folder of its own (lint RP009)", item.feed, item.other_path)
                       for kind, item in planned.refused]
    for plan in planned.plans:
        assert eviction is not None  # a file feed on a cluster with a write endpoint: retain checked both
        result.links_left.extend(plan.links)
        data_events = events if plan.kind == "data" else None  # an instance is its data: its event says where it went
        if lease is not None:
            lease.check()  # before the plan of its events too: a run that lost its lease writes nothing
        if data_events is not None:
            data_events.plan([(i.time, eviction.destination(i.path) or i.path) for i in plan.expired])
        applied = None
        if lease is None:
            sizes, directories = fs.total_sizes([i.entry for i in plan.expired]), 0
        else:
            applied = eviction.apply(fs, plan)
            sizes, directories = applied.sizes, applied.directories_removed
            result.refused += [RefusedItem(plan.kind, format_timestamp(i.time), i.path, applied.kept[i.path])
                               for i in plan.expired if i.path in applied.kept]
            plan = replace(plan, expired=tuple(i for i in plan.expired if i.path not in applied.kept))
        result.directories_removed += directories
        for instance in plan.expired:
            destination = eviction.destination(instance.path)
            if destination is not None:
                destination = (applied.moved.get(instance.path) if applied is not None else None) or destination
            result.evicted.append(EvictedItem(plan.kind, format_timestamp(instance.time), instance.path,
                                              sizes.get(instance.path, 0), archived_to=destination))
            result.bytes_freed += sizes.get(instance.path, 0)
            if data_events is not None:
                data_events.evicted(instance.time, destination or instance.path)
        if data_events is not None:
            assert lease is not None  # a dry run has no events
            lease.check()  # the deletions may be long: the events are written only by the lease's holder
            data_events.done()
    result.elapsed_seconds = time.perf_counter() - began
    if lease is None:
        result.status = Status.DRY_RUN
        return
    lease.check()
    result.report = record_path(cluster, "retention", feed.name, result.time)
    write_record(fs, result.report, result.record(
        call.run_id, eviction.action if eviction is not None else "delete",
        describe_holder(lease.previous) if lease.previous is not None else None))


class _Events:
    """The `evicted` events of one retention run, one batch per feed (core/ledger/evictions.py): the evictions are
    planned in the ledger before anything is evicted and the plan removed once their batch is written, so a run
    killed in between leaves the plan, and the next run writes the batch of the instances that are gone
    (feed_locations says where to look), or only its journal entry when the killed run wrote the batch."""

    def __init__(self, life: Lifecycle) -> None:
        self.ledger, self.feed, self.cluster, self.run_id = (life.ledger, life.call.feed, life.call.cluster,
                                                             life.context.run_id)
        self.definition = life.call.definition  # the evicting definition, in each batch
        self.gone: list[tuple[datetime, str]] = []  # evicted, their events written by `done` in one batch

    def finish_pending(self, fs: FileSystem, catalog: Catalog | None) -> None:
        pending = self.ledger.pending_evictions(self.feed.name)
        if pending is None:
            return
        run_id, planned = pending
        written = self.ledger.evictions.of_run(self.feed.name, run_id)
        if written is not None:
            self.ledger.journal.ensure_batch(written)
            self.ledger.clear_evictions(self.feed.name)
            return
        where = feed_locations(self.feed, self.cluster)
        if where.is_table and catalog is None:
            return  # the plan stays for a run that can ask the metastore (this one stops for want of it)
        if where.is_table:
            available = probe_table(catalog, fs, where, [t for t, _ in planned]) if catalog is not None else {}
            gone = [(t, location) for t, location in planned if not available[t].available]
        else:
            gone = [(t, location) for t, location in planned if fs.status(where.event_location(t)) is None]
        self.ledger.record_evictions(self.feed.name, self.cluster.name, gone, producer="retention", run_id=run_id,
                                     definition=self.definition)
        self.ledger.clear_evictions(self.feed.name)

    def plan(self, planned: list[tuple[datetime, str]]) -> None:
        if planned:
            self.ledger.plan_evictions(self.feed.name, self.run_id, planned)

    def evicted(self, t: datetime, location: str) -> None:
        self.gone.append((t, location))

    def done(self) -> None:
        """The batch of the evictions since the plan, then the plan removed."""
        if self.gone:
            self.ledger.record_evictions(self.feed.name, self.cluster.name, self.gone, producer="retention",
                                         run_id=self.run_id, definition=self.definition)
            self.gone = []
        self.ledger.clear_evictions(self.feed.name)


def _evict_table(call: _Retention, result: RetentionResult, uri: CatalogTemplate, events: _Events | None) -> None:
    catalog, fs, lease = call.catalog, call.fs, call.lease
    assert result.cut_off is not None  # retain set it
    if catalog is None:
        raise UsageError(f"The feed '{result.feed}' is a catalog table on cluster '{result.cluster}': its retention "
                         "needs the Hive metastore, run it through the spark-submit entrypoint.")
    if not uri.can_date_instances:
        raise UsageError(f"The table URI of feed '{result.feed}' has no ${{YEAR}} in its partition values: "
                         f"{uri.uri!r}; retention cannot date its partitions.")
    planned = plan_drops(catalog, fs, uri, expired_partitions(catalog, uri, call.zone, result.cut_off))
    located = [(drop.expired.time, f"{uri.database}.{uri.table}/{drop.expired.partition.name}") for drop in planned]
    if lease is not None:
        lease.check()
        if events is not None:
            events.plan(located)
        drop_planned(catalog, fs, uri, planned)
    for drop, (t, location) in zip(planned, located, strict=True):
        partition = drop.expired.partition
        result.evicted.append(EvictedItem("table", format_timestamp(drop.expired.time), partition.location,
                                          drop.bytes, partition=partition.name, data_deleted=drop.deletes_data))
        result.bytes_freed += drop.bytes
        if events is not None:
            events.evicted(t, location)
    if events is not None and planned:
        assert lease is not None  # a dry run has no events
        lease.check()  # the drops may be long: the events are written only by the lease's holder
        events.done()
