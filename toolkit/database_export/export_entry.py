"""The body of `entrypoints/export.py`: arguments, the checks that need no JVM (the repo, the feed's export on the
cluster, its datasource and write interface, the instance on the feed's grid and in its validity), the session with
the datasource's driver, the export, the status line."""

from __future__ import annotations

import argparse

from toolkit.datasource_access.endpoints import FOR_EXPORT, endpoint_for, interface_for
from toolkit.el.grid import require_instance
from toolkit.el.timestamps import format_timestamp
from toolkit.entities.launcher_settings import launcher_confs
from toolkit.entities.model import Cluster, Export, Feed
from toolkit.entities.object_stores import require_no_object_store
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import SkippedError, UsageError
from toolkit.instances.grids import feed_grid, require_on_cluster
from toolkit.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.runtime.entry_frame import common_parser, run, seconds
from toolkit.runtime.status import StatusLine
from toolkit.runtime.times import nominal_time


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("export", "Export one published instance of a feed into the database table its export "
                                     "names on a cluster (Falcon's export policy): the rows written into a staging "
                                     "table, then loaded into the target in one transaction (updateonly, "
                                     "allowinsert or snapshot); exit 4 when the instance was exported already, 3 "
                                     "while it is not published.",
                           time_help="The instance yyyy-MM-ddTHH:mmZ (UTC); default: now, to the minute.")
    parser.add_argument("--feed", required=True, help="The feed whose instance is exported.")
    parser.add_argument("--cluster", required=True, help="The cluster the feed's export is defined on.")
    parser.add_argument("--force", action="store_true", help="Export an instance exported already again.")
    parser.add_argument("--lease", type=seconds, default=DEFAULT_LEASE_SECONDS, metavar="SECONDS",
                        help=f"Lease of the export's lock, renewed every third of it; a killed run's lock is taken "
                             f"over once it expired (default {DEFAULT_LEASE_SECONDS:.0f}).")
    return parser


def export_policy(feed: Feed, cluster: Cluster) -> Export:
    """The feed's export on the cluster; UsageError when it has none there."""
    policy = require_on_cluster(feed, cluster.name).export
    if policy is None:
        raise UsageError(f"Feed '{feed.name}' has no export on cluster '{cluster.name}': add clusters[].export with "
                         "the datasource and table to write.")
    return policy


def _body(args: argparse.Namespace, status: StatusLine) -> None:
    from toolkit.database_export.runner import ExportCall, run_export
    from toolkit.runtime.action_session import action_session
    from toolkit.storage.jdbc.credential_provider import alias_reader

    if args.lease <= 0:
        raise UsageError("--lease must be a positive number of seconds.")
    t = nominal_time(args.time)
    status.time = format_timestamp(t)
    repo = ConfigRepo.load(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    policy = export_policy(feed, cluster)
    datasource = repo.datasource(policy.datasource)
    interface_for(datasource, FOR_EXPORT)
    status.cluster = cluster.name
    status.add(datasource=datasource.name, table=policy.target.table_name, load=policy.target.load.value)
    on_cluster = require_on_cluster(feed, cluster.name)
    owner = f"feed '{feed.name}' on cluster '{cluster.name}'"
    if not on_cluster.validity.start <= t < on_cluster.validity.end:
        raise SkippedError(f"{format_timestamp(t)} is outside the validity of {owner} "
                           f"({format_timestamp(on_cluster.validity.start)} to "
                           f"{format_timestamp(on_cluster.validity.end)}): nothing to export.")
    require_instance(feed_grid(feed, cluster.name), t, owner)
    table_feed = feed.table_on(cluster.name) is not None
    with action_session("export", feed.name, cluster, status, hive=table_feed,
                        launcher=launcher_confs(feed)) as session:
        endpoint = endpoint_for(datasource, FOR_EXPORT, cluster, session.fs, alias_reader(session.spark))
        context = session.context(catalog=table_feed, lease_seconds=args.lease)
        outcome = run_export(session.spark, ExportCall(feed, cluster, policy, datasource, t, args.force), endpoint,
                             context)
    status.status = outcome.status
    status.add_counters(outcome.counters())


def main() -> int:
    return run("export", _parser(), _body)
