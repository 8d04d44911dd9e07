"""The bodies of `entrypoints/hive_export.py` and `entrypoints/hive_import.py`: arguments, the cheap checks
before Spark starts (repo, feed on cluster, table feed, directory), the session, the action, the status line."""

from __future__ import annotations

import argparse

from toolkit.actions.replication.hive.feeds import directory_uri, feed_partition, feed_table
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import StatusLine
from toolkit.services.runtime.times import nominal_time
from toolkit.statuses import Status


def _export_parser() -> argparse.ArgumentParser:
    parser = common_parser("hive_export", "Export the partition of a table feed for one instance on a cluster: its "
                                          "data files and a _metadata.json, written last, into a directory.")
    parser.add_argument("--feed", required=True, help="The table feed whose partition is exported.")
    parser.add_argument("--cluster", required=True, help="The cluster whose metastore and file system hold it.")
    parser.add_argument("--to", required=True, metavar="DIR",
                        help="The export directory: a URI (it may be on another cluster's file system), or an "
                             "absolute path on this cluster's. New, empty, or an earlier export (replaced).")
    return parser


def _export_body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.replication.hive.runner import HIVE_EXPORT, run_hive_export
    from toolkit.services.runtime.action_session import action_session
    from toolkit.services.runtime.lifecycle import FeedCall

    t = nominal(args, status)
    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    partition = feed_partition(feed, cluster, t)  # before Spark starts: a bad call costs no JVM
    destination = directory_uri(args.to, cluster, "--to")
    status.add(table=partition.qualified_table, partition=partition.name, to=destination)
    call = FeedCall.of(HIVE_EXPORT, repo, feed, cluster, t, ("--to", destination))  # grid (2), validity (4)
    with action_session("hive-export", feed.name, cluster, status, hive=True,
                        launcher=launcher_confs(feed)) as session:
        result = run_hive_export(session.spark, call, destination, session.context(
            catalog=True, notifier=session.notifier(counted=feed.notification is not None)))
    status.add(to=result.directory, export_id=result.export_id, **result.counters())
    return Status.SUCCEEDED


def _import_parser() -> argparse.ArgumentParser:
    parser = common_parser("hive_import", "Import a partition that hive_export.py wrote into the table feed's table "
                                          "on a cluster: the table is created when missing, the partition appears "
                                          "(or is replaced) only once its files are in place.",
                           time_help="The instance (yyyy-MM-ddTHH:mmZ); default: the one the export records. "
                                     "When given, it must be the export's.")
    parser.add_argument("--feed", required=True, help="The table feed; its catalog URI on --cluster names the table.")
    parser.add_argument("--cluster", required=True, help="The cluster whose metastore and file system take it.")
    parser.add_argument("--from", dest="source", required=True, metavar="DIR",
                        help="The export directory (a URI, or an absolute path on this cluster's file system).")
    parser.add_argument("--table-location", metavar="URI",
                        help="Where a table created by the import lives (default: its database's place for it).")
    parser.add_argument("--keep-export", action="store_true",
                        help="Copy the files and leave the export as it is (default: move them, when the export is "
                             "on the same file system, and delete the export once imported).")
    parser.add_argument("--no-checksums", dest="checksums", action="store_false",
                        help="Check the files' sizes only, not their CRC32C checksums.")
    add_lease_argument(parser, "the partition's import lock")
    return parser


def _import_body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.replication.hive.importer import ImportOptions
    from toolkit.actions.replication.hive.runner import plan_hive_import, run_hive_import
    from toolkit.services.runtime.action_session import action_session

    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    asked = nominal_time(args.time) if args.time else None
    feed_table(feed, cluster)  # checked before Spark starts: a bad call costs no JVM
    source = directory_uri(args.source, cluster, "--from")
    table_location = directory_uri(args.table_location, cluster, "--table-location") if args.table_location else None
    status.add(source=source)
    # the import deletes staging and replaced folders: the session's file system refuses the cluster's root
    with action_session("hive-import", feed.name, cluster, status, hive=True,
                        launcher=launcher_confs(feed)) as session:
        plan = plan_hive_import(session.fs, feed, cluster, source, asked)
        status.time = format_timestamp(plan.time) if plan.time else None  # the export's, not --time's
        status.add(table=f"{plan.database}.{plan.table}")
        result = run_hive_import(session.spark, repo, feed, cluster, plan, session.context(
            lease_seconds=args.lease, catalog=True, notifier=session.notifier(counted=feed.notification is not None)),
            ImportOptions(table_location, args.keep_export, args.checksums))
    status.add(partition=result.partition_name, location=result.location, export_id=result.export_id,
               **result.counters())
    return Status.SUCCEEDED


def export_main() -> int:
    return run("hive_export", _export_parser(), _export_body)


def import_main() -> int:
    return run("hive_import", _import_parser(), _import_body)
