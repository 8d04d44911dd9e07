"""The body of `entrypoints/import.py`: arguments, the checks that need no JVM (the repo, the feed's import on the
cluster, its datasource and interface, the instance on the feed's grid and in its validity), the session with the
datasource's driver, the import, the status line."""

from __future__ import annotations

import argparse

from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.model import Cluster, Feed, Import
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.core.instances.grids import require_on_cluster
from toolkit.errors import UsageError
from toolkit.services.datasource_access.endpoints import FOR_IMPORT, endpoint_for, interface_for
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("import", "Import one instance of a feed from the database table its import names on a "
                                     "cluster (Falcon's import policy): the rows read through Spark's JDBC source "
                                     "(all of them, or for an incremental import those past the high-water mark), "
                                     "staged in the feed's format and published in one step; exit 4 when the "
                                     "instance was imported already.",
                           time_help="The instance yyyy-MM-ddTHH:mmZ (UTC); default: now, to the minute.")
    parser.add_argument("--feed", required=True, help="The feed whose instance is imported.")
    parser.add_argument("--cluster", required=True, help="The cluster the feed's import is defined on.")
    parser.add_argument("--force", action="store_true",
                        help="Import an instance imported already again (an incremental one re-reads the rows it "
                             "read then).")
    add_lease_argument(parser, "the import's lock")
    return parser


def import_policy(feed: Feed, cluster: Cluster) -> Import:
    """The feed's import on the cluster; UsageError when it has none there."""
    policy = require_on_cluster(feed, cluster.name).import_
    if policy is None:
        raise UsageError(f"Feed '{feed.name}' has no import on cluster '{cluster.name}': add clusters[].import with "
                         "the datasource and table to read.")
    return policy


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.database_import.runner import ImportCall, run_import
    from toolkit.core.storage.jdbc.credential_provider import alias_reader
    from toolkit.services.runtime.action_session import action_session
    from toolkit.services.runtime.lifecycle import failures_told

    t = nominal(args, status)
    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    require_no_object_store(cluster)
    policy = import_policy(feed, cluster)
    datasource = repo.datasource(policy.datasource)
    interface_for(datasource, FOR_IMPORT)
    status.add(datasource=datasource.name, table=policy.source.table_name)
    call = ImportCall.of(repo, feed, cluster, policy, datasource, t, args.force)  # before Spark: exit 2 or 4
    with action_session("import", feed.name, cluster, status, hive=feed.table_on(cluster.name) is not None,
                        launcher=launcher_confs(feed)) as session:
        notifier = session.notifier(counted=feed.notification is not None)
        with failures_told(call.instance, notifier, status.run_id):  # the metastore's connection too
            endpoint = endpoint_for(datasource, FOR_IMPORT, cluster, session.fs, alias_reader(session.spark))
            context = session.context(catalog=feed.table_on(cluster.name) is not None, lease_seconds=args.lease,
                                      notifier=notifier)
            outcome = run_import(session.spark, call, endpoint, context)
    status.add_counters(outcome.counters())
    return outcome.status


def main() -> int:
    return run("import", _parser(), _body)
