"""The retention action for one feed on one cluster at one nominal time.

Order: check the call (feed on cluster, retention policy, validity, templates), plan every templated
location (and the table), then evict (unless a dry run), then write the report. Nothing reads the wall
clock: the nominal time is passed in. The cluster's root is protected on the file system (no delete of it or
above it), and symbolic links met on the walk are left in place and listed in the report (`links_left`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.el.shift import shift
from toolkit.el.templates import CatalogTemplate, PathTemplate
from toolkit.el.timestamps import format_timestamp
from toolkit.el.timezones import resolve_zone
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.instances.feed_locations import require_safe_template
from toolkit.instances.grids import require_on_cluster
from toolkit.retention.cutoff import cutoff
from toolkit.retention.evict import evict
from toolkit.retention.file_plan import plan_location
from toolkit.retention.tables import drop_planned, expired_partitions, plan_drops
from toolkit.runtime.run_record import record_path, write_record
from toolkit.storage.catalog import Catalog
from toolkit.storage.filesystem import FileSystem

KEEP_BEYOND_VALIDITY = "retention.keep-instances-beyond-validity"


@dataclass
class RetentionResult:
    """What the run did; `status` is SUCCEEDED, SKIPPED (exit 4) or DRY_RUN."""

    status: str
    feed: str
    cluster: str
    time: datetime
    cut_off: datetime | None = None
    reason: str | None = None
    evicted: list[dict[str, object]] = field(default_factory=list)
    skipped_locations: list[str] = field(default_factory=list)
    links_left: list[str] = field(default_factory=list)
    bytes_freed: int = 0
    directories_removed: int = 0
    elapsed_seconds: float = 0.0
    report: str | None = None

    def counters(self) -> dict[str, object]:
        return {"instances_evicted": len(self.evicted), "bytes_freed": self.bytes_freed,
                "directories_removed": self.directories_removed, "elapsed_seconds": round(self.elapsed_seconds, 3)}


def run_retention(repo: ConfigRepo, feed_name: str, cluster_name: str, nominal: datetime, fs: FileSystem,
                  catalog: Catalog | None = None, dry_run: bool = False, run_id: str = "") -> RetentionResult:
    began = time.perf_counter()
    feed, cluster = repo.feed(feed_name), repo.cluster(cluster_name)
    on_cluster = require_on_cluster(feed, cluster.name)
    result = RetentionResult("SUCCEEDED", feed.name, cluster.name, nominal)
    if on_cluster.retention is None:
        raise UsageError(f"The feed '{feed.name}' has no retention on cluster '{cluster.name}': add "
                         "clusters[].retention.limit (e.g. days(90)) to evict its old instances.")
    if cluster.write_endpoint is None:
        raise UsageError(f"The cluster '{cluster.name}' has no write interface: retention needs the root of its "
                         "file system (interfaces.write.endpoint).")
    fs.protect(cluster.write_endpoint)
    zone = resolve_zone(feed.timezone)
    limit = on_cluster.retention.limit
    end = on_cluster.validity.end
    keep_beyond = feed.properties.get(KEEP_BEYOND_VALIDITY, "true").strip().lower() != "false"
    last_useful = end if keep_beyond else shift(end, limit, zone, +1)
    if nominal >= last_useful:
        result.status = "SKIPPED"
        kept = "" if keep_beyond else f", and its instances are kept until {format_timestamp(last_useful)}"
        result.reason = (f"{format_timestamp(nominal)} is after the validity of feed '{feed.name}' on cluster "
                         f"'{cluster.name}' (it ends {format_timestamp(end)}{kept})")
        return result
    result.cut_off = cutoff(nominal, limit, zone)
    table = feed.table_on(cluster.name)
    if table is not None:
        _evict_table(result, CatalogTemplate(table), zone, fs, catalog, dry_run)
    plans = []
    for kind, text in ({} if table is not None else feed.locations_on(cluster.name)).items():
        template = PathTemplate(text)
        if not template.is_dated:
            result.skipped_locations.append(kind)
            continue
        require_safe_template(kind, feed.name, template, "retention")
        plans.append(plan_location(fs, cluster.write_endpoint, kind, template, zone, result.cut_off))
    for plan in plans:
        result.links_left.extend(plan.links)
        if dry_run:
            sizes, directories = fs.total_sizes([i.entry for i in plan.expired]), 0
        else:
            done = evict(fs, plan)
            sizes, directories = done.sizes, done.directories_removed
        result.directories_removed += directories
        for instance in plan.expired:
            result.evicted.append({"location": plan.kind, "time": format_timestamp(instance.time),
                                   "path": instance.path, "bytes": sizes.get(instance.path, 0)})
            result.bytes_freed += sizes.get(instance.path, 0)
    if dry_run:
        result.status = "DRY_RUN"
    result.elapsed_seconds = time.perf_counter() - began
    if not dry_run:
        result.report = record_path(cluster, "retention", feed.name, nominal)
        write_record(fs, result.report, {
            "action": "retention", "feed": feed.name, "cluster": cluster.name, "run_id": run_id,
            "time": format_timestamp(nominal), "cut_off": format_timestamp(result.cut_off),
            "evicted": result.evicted, "skipped_locations": result.skipped_locations,
            "links_left": result.links_left, **result.counters(),
        })
    return result


def _evict_table(result: RetentionResult, uri: CatalogTemplate, zone: ZoneInfo, fs: FileSystem,
                 catalog: Catalog | None, dry_run: bool) -> None:
    if catalog is None:
        raise UsageError(f"The feed '{result.feed}' is a catalog table on cluster '{result.cluster}': its retention "
                         "needs the Hive metastore, run it through the spark-submit entrypoint.")
    if not uri.can_date_instances:
        raise UsageError(f"The table URI of feed '{result.feed}' has no ${{YEAR}} in its partition values: "
                         f"{uri.uri!r}; retention cannot date its partitions.")
    planned = plan_drops(catalog, fs, uri, expired_partitions(catalog, uri, zone, result.cut_off))
    if not dry_run:
        drop_planned(catalog, fs, uri, planned)
    for drop in planned:
        partition = drop.expired.partition
        result.evicted.append({"location": "table", "time": format_timestamp(drop.expired.time),
                               "partition": partition.name, "path": partition.location,
                               "bytes": drop.bytes, "data_deleted": drop.deletes_data})
        result.bytes_freed += drop.bytes
