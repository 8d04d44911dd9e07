"""The body of `entrypoints/export.py`: arguments, the checks that need no JVM (the repo, the feed's export on the
cluster, its datasource and write interface, the instance on the feed's grid and in its validity), the session with
the datasource's driver, the export, the status line."""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.model import Cluster, Export, Feed
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.entities.replication_settings import timeout as feed_timeout
from toolkit.core.instances.grids import require_on_cluster
from toolkit.errors import UsageError
from toolkit.services.datasource_access.endpoints import FOR_EXPORT, endpoint_for, interface_for
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run, seconds
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import StatusLine

if TYPE_CHECKING:
    from toolkit.actions.database_export.runner import ExportCall, Waiting
    from toolkit.statuses import Status


def entry_parser() -> argparse.ArgumentParser:
    parser = common_parser("export", "Export one published instance of a feed into the database table its export "
                                     "names on a cluster (Falcon's export policy): the rows written into a staging "
                                     "table, then loaded into the target in one transaction (updateonly, "
                                     "allowinsert or snapshot); exit 4 when the instance was exported already, 3 "
                                     "while it is not published.",
                           time_help="The instance yyyy-MM-ddTHH:mmZ (UTC); default: now, to the minute.")
    parser.add_argument("--feed", required=True, help="The feed whose instance is exported.")
    parser.add_argument("--cluster", required=True, help="The cluster the feed's export is defined on.")
    parser.add_argument("--force", action="store_true", help="Export an instance exported already again.")
    parser.add_argument("--wait", action=argparse.BooleanOptionalAction, default=True,
                        help="While the instance is not published, poll (10 s, doubling to 5 min) for at most one "
                             "period of the feed (or --max-wait), then exit 3; past the feed's timeout after the "
                             "instance (its `timeout` property, else 6 periods and at least 30 minutes), exit 1. "
                             "--no-wait: exit 3 at once.")
    parser.add_argument("--max-wait", type=seconds, metavar="SECONDS",
                        help="Poll at most this long (default: one period of the feed).")
    add_lease_argument(parser, "the export's lock")
    return parser


def export_policy(feed: Feed, cluster: Cluster) -> Export:
    """The feed's export on the cluster; UsageError when it has none there."""
    policy = require_on_cluster(feed, cluster.name).export
    if policy is None:
        raise UsageError(f"Feed '{feed.name}' has no export on cluster '{cluster.name}': add clusters[].export with "
                         "the datasource and table to write.")
    return policy


def checked_call(args: argparse.Namespace, status: StatusLine) -> ExportCall:
    """The call, once what needs no JVM is checked (exit 2 or 4), its datasource and table said in the status line:
    the entrypoint's first steps, and those of the wait before Spark (wait_before_spark.py)."""
    from toolkit.actions.database_export.runner import ExportCall

    t = nominal(args, status)
    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    policy = export_policy(feed, cluster)
    datasource = repo.datasource(policy.datasource)
    interface_for(datasource, FOR_EXPORT)
    status.add(datasource=datasource.name, table=policy.target.table_name, load=policy.target.load.value)
    return ExportCall.of(repo, feed, cluster, policy, datasource, t, args.force)


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.database_export.runner import run_export
    from toolkit.core.storage.jdbc.credential_provider import alias_reader
    from toolkit.services.runtime.action_session import action_session
    from toolkit.services.runtime.lifecycle import failures_told

    call = checked_call(args, status)
    feed, cluster, datasource, t = call.feed, call.cluster, call.datasource, call.time
    table_feed = feed.table_on(cluster.name) is not None
    with action_session("export", feed.name, cluster, status, hive=table_feed,
                        launcher=launcher_confs(feed)) as session:
        notifier = session.notifier(counted=feed.notification is not None)
        with failures_told(call.instance, notifier, status.run_id):  # the metastore's connection too
            endpoint = endpoint_for(datasource, FOR_EXPORT, cluster, session.fs, alias_reader(session.spark))
            context = session.context(catalog=table_feed, lease_seconds=args.lease, notifier=notifier)
            outcome = run_export(session.spark, call, endpoint, context, waiting_of(feed, t, args))
    status.add_counters(outcome.counters())
    return outcome.status


def waiting_of(feed: Feed, t: datetime, args: argparse.Namespace) -> Waiting | None:
    """How long this call waits for the instance: one period of the feed (or --max-wait), never past the feed's
    timeout after the instance; None with --no-wait."""
    from toolkit.actions.database_export.runner import Waiting

    zone = resolve_zone(feed.timezone)
    deadline = shift(t, feed_timeout(feed), zone, +1)
    if not args.wait:
        return Waiting(None, deadline)
    now = datetime.now(timezone.utc)
    period = (shift(now, feed.frequency, zone, +1) - now).total_seconds()
    longest = args.max_wait if args.max_wait is not None else period
    return Waiting(min(now + timedelta(seconds=longest), deadline), deadline)


def main() -> int:
    return run("export", entry_parser(), _body)
