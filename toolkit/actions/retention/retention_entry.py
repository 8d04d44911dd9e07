"""The retention entrypoint's body, and `toolkit retain`'s: arguments, the cheap checks before Spark starts, the
session, the run. A file feed on a cluster the toolkit reaches without a JVM (a `file://` root, HDFS through
WebHDFS) is retained without Spark, by `spark-submit entrypoints/retention.py` (whose launcher JVM then starts no
SparkContext) and by `toolkit retain` alike; a table feed, or a cluster only Hadoop's client reaches, needs the
Spark session, which `toolkit retain` refuses to start. `--all` retains every feed of the cluster whose retention is
due (toolkit/actions/retention/cluster_call.py)."""

from __future__ import annotations

import argparse
import re
import sys
from functools import partial

from toolkit.actions.retention.feed_call import RetainOptions, check_feed, needs_spark_error, report_lines, retain_feed
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.errors import UsageError
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status

DEFAULT_PARALLEL = 4
MAX_PARALLEL = 64


def _parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = common_parser("retention", "Evict the instances of a feed on a cluster that are older than the "
                                        "cluster's retention limit, and nothing else; or, with --all, of every "
                                        "feed of the cluster whose retention is due. A file feed on a file:// "
                                        "cluster, or on HDFS reached through WebHDFS, is retained without Spark.",
                           prog=prog)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--feed", help="The feed whose old instances are evicted.")
    which.add_argument("--all", action="store_true",
                       help="Every feed of --cluster whose retention is due: the latest instant of its retention "
                            "cadence at or before --time that has no retention record yet, retained at that instant "
                            "(as a scheduled call of the feed alone would be). One status line per feed retained, "
                            "then a summary line; the exit code is the worst of the feeds' (a run of no feed due is "
                            "exit 4).")
    parser.add_argument("--cluster", required=True, help="The cluster whose retention limit applies.")
    parser.add_argument("--dry-run", action="store_true", help="Print the plan; delete nothing, write no report.")
    add_lease_argument(parser, "the feed's retention lock")
    parser.add_argument("--parallel", type=_feeds_at_once, metavar="N",
                        help=f"With --all: how many feeds are retained at once (default {DEFAULT_PARALLEL}): file "
                             "feeds in as many worker processes forked from this call (1: one after another in "
                             "this process), feeds that need Spark one after another in this process's one "
                             "session.")
    return parser


def _feeds_at_once(text: str) -> int:
    """An argparse type: a whole number of feeds from 1 to MAX_PARALLEL."""
    if not re.fullmatch("[0-9]{1,3}", text) or not 1 <= int(text) <= MAX_PARALLEL:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of feeds from 1 to {MAX_PARALLEL}")
    return int(text)


def _body(args: argparse.Namespace, status: StatusLine, *, spark_allowed: bool = True) -> Status:
    from toolkit.services.runtime.action_session import action_session, storage_session
    from toolkit.services.runtime.jvm_free import retention_without_jvm

    t = nominal(args, status)
    options = RetainOptions(args.dry_run, args.lease)
    if args.parallel is not None and not args.all:
        raise UsageError("--parallel is for --all: a call for one feed retains one feed.")
    repo = load_repo(args.repo)
    if args.all:
        from toolkit.actions.retention.cluster_call import retain_cluster

        return retain_cluster(repo, repo.cluster(args.cluster), t, status, options,
                              args.parallel or DEFAULT_PARALLEL, spark_allowed=spark_allowed)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    check_feed(feed, cluster)  # before Spark starts: a bad call costs no JVM
    without_jvm = retention_without_jvm(feed, cluster)
    if not without_jvm and not spark_allowed:
        raise needs_spark_error([feed], cluster, "with the same arguments")
    opened = storage_session(cluster, status) if without_jvm else action_session(
        "retention", feed.name, cluster, status, hive=feed.table_on(cluster.name) is not None,
        launcher=launcher_confs(feed))
    result = retain_feed(repo, feed, cluster, t, status, options, opened)
    out, err = report_lines(result, options.dry_run)
    for line in out:
        print(line)
    for line in err:
        print(line, file=sys.stderr)
    return result.status


def main() -> int:
    return run("retention", _parser(), _body)


def retain_main(argv: list[str]) -> int:
    """`toolkit retain`: the entrypoint's call in this process, with no JVM; refused where retention needs Spark."""
    return run("retention", _parser("toolkit retain"), partial(_body, spark_allowed=False), argv)
