"""The retention entrypoint's body, and `toolkit retain`'s: arguments, the cheap checks before Spark starts, the
session, the run. A file feed on a cluster the toolkit reaches without a JVM (a `file://` root, HDFS through
WebHDFS) is retained without Spark, by `spark-submit entrypoints/retention.py` (whose launcher JVM then starts no
SparkContext) and by `toolkit retain` alike; a table feed, or a cluster only Hadoop's client reaches, needs the
Spark session, which `toolkit retain` refuses to start."""

from __future__ import annotations

import argparse
import sys
from functools import partial

from toolkit.el.timestamps import format_timestamp
from toolkit.entities.launcher_settings import launcher_confs
from toolkit.entities.object_stores import require_no_object_store
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import ToolkitError, UsageError
from toolkit.instances.grids import require_on_cluster
from toolkit.ledger.store import DEFAULT_LEASE_SECONDS
from toolkit.runtime.entry_frame import common_parser, run, seconds
from toolkit.runtime.status import StatusLine
from toolkit.runtime.times import nominal_time


def _parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = common_parser("retention", "Evict the instances of a feed on a cluster that are older than the "
                                        "cluster's retention limit, and nothing else. A file feed on a file:// "
                                        "cluster, or on HDFS reached through WebHDFS, is retained without Spark.",
                           prog=prog)
    parser.add_argument("--feed", required=True, help="The feed whose old instances are evicted.")
    parser.add_argument("--cluster", required=True, help="The cluster whose retention limit applies.")
    parser.add_argument("--dry-run", action="store_true", help="Print the plan; delete nothing, write no report.")
    parser.add_argument("--lease", type=seconds, default=DEFAULT_LEASE_SECONDS, metavar="SECONDS",
                        help=f"Lease of the feed's retention lock, renewed every third of it; a killed run's "
                             f"lock is taken over once it expired (default {DEFAULT_LEASE_SECONDS:.0f}).")
    return parser


def _body(args: argparse.Namespace, status: StatusLine, *, spark_allowed: bool = True) -> None:
    from toolkit.retention.runner import run_retention
    from toolkit.retention_actions.registry import eviction_for
    from toolkit.runtime.action_session import action_session, storage_session
    from toolkit.runtime.feed_notices import notify_feed_failure
    from toolkit.runtime.jvm_free import retention_without_jvm

    nominal = nominal_time(args.time)
    if args.lease <= 0:
        raise UsageError("--lease must be a positive number of seconds.")
    status.time = format_timestamp(nominal)
    repo = ConfigRepo.load(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    require_on_cluster(feed, cluster.name)  # before Spark starts: a bad call costs no JVM
    require_no_object_store(cluster)
    eviction_for(feed, cluster)  # an action the toolkit does not run: exit 2 before anything is touched
    launcher_confs(feed)  # a bad queueName or jobPriority is exit 2 on either path, with or without Spark
    status.cluster = cluster.name
    is_table = feed.table_on(cluster.name) is not None
    without_jvm = retention_without_jvm(feed, cluster)
    if not without_jvm and not spark_allowed:
        why = "is a catalog table" if is_table else "is on a file system only Hadoop's client reaches"
        raise UsageError(f"The feed '{feed.name}' {why} on cluster '{cluster.name}': its retention needs Spark; run "
                         "spark-submit entrypoints/retention.py with the same arguments.")
    opened = storage_session(cluster, status) if without_jvm else action_session(
        "retention", feed.name, cluster, status, hive=is_table, launcher=launcher_confs(feed))
    with opened as session:
        notifier = session.notifier(counted=feed.notification is not None)
        try:
            result = run_retention(repo, feed.name, cluster.name, nominal,
                                   session.context(lease_seconds=args.lease, catalog=is_table), dry_run=args.dry_run)
        except Exception as err:  # a ToolkitError of exit 1, or anything unforeseen: failed (a usage error, a
            # wait or a block is no failure to tell anyone about)
            if not isinstance(err, ToolkitError) or err.exit_code == 1:
                notify_feed_failure(notifier, repo, feed, "retention", nominal, status.run_id,
                                    str(err) or type(err).__name__)
            raise
    if args.dry_run:
        for item in result.evicted:
            print(f"would evict {item['time']}  {item['path']}  ({item['bytes']} bytes)")
    for item in result.refused:
        print(f"retention: kept {item['path']}: {item['reason']}", file=sys.stderr)
    if result.reason:
        print(f"retention: {result.reason}; nothing to do.", file=sys.stderr)
    status.status = result.status
    status.add(cut_off=result.cut_off and format_timestamp(result.cut_off), report=result.report)
    status.add_counters(result.counters())


def main() -> int:
    return run("retention", _parser(), _body)


def retain_main(argv: list[str]) -> int:
    """`toolkit retain`: the entrypoint's call in this process, with no JVM; refused where retention needs Spark."""
    return run("retention", _parser("toolkit retain"), partial(_body, spark_allowed=False), argv)
