"""The replication entrypoint's body: arguments, the cheap checks before Spark starts, the session, the run."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.launcher_settings import launcher_confs
from toolkit.core.entities.object_stores import require_no_object_store
from toolkit.errors import UsageError
from toolkit.planners.replication import sources_of, target_of
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.lease_option import add_lease_argument
from toolkit.services.runtime.status import StatusLine

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolkit.actions.replication.tables import TablePuller
    from toolkit.core.entities.model import Cluster, Feed
    from toolkit.planners.replication import Source
    from toolkit.services.runtime.run_context import RunContext
    from toolkit.statuses import Status


def entry_parser() -> argparse.ArgumentParser:
    parser = common_parser(
        "replication",
        "Pull one instance of a feed (the one at or before --time minus the target's delay) from its source "
        "clusters into a target cluster: files copied in parallel, verified, published atomically (staging "
        "folder renamed into place, availability flag last); a rerun copies only what changed. A feed with a "
        "`quality` gate has each staged copy checked first: a failing `block` gate publishes nothing (exit 1). "
        "Exit 3 while a source instance is not available yet, 1 once the feed's timeout after it has passed.")
    parser.add_argument("--feed", required=True, help="The feed to replicate.")
    parser.add_argument("--target", required=True, help="The cluster to pull into (type: target in the feed).")
    parser.add_argument("--source", help="Pull from this source only; default: every source of the feed.")
    parser.add_argument("--from", dest="window_from", metavar="FIRST",
                        help="Catch-up: replicate every instance from FIRST to --to (yyyy-MM-ddTHH:mmZ), skipping "
                             "those already replicated and unchanged; the feed property `parallel` are in flight.")
    parser.add_argument("--to", dest="window_to", metavar="LAST", help="The last instance of the catch-up window.")
    parser.add_argument("--staged", metavar="DIR",
                        help="Table feeds: import the export an earlier hive_export.py on the source wrote into DIR "
                             "(a URI, or a path on the target's file system) instead of reading the source's "
                             "metastore; for targets that cannot reach it.")
    parser.add_argument("--recopy", action="store_true",
                        help="Copy every file of the instance again from the source, trusting nothing a former run "
                             "staged or published, and publish the copy whole (`toolkit rerun --feed F --action "
                             "replication` without --continue). File feeds only.")
    parser.add_argument("--now", help="The current time the timeout is measured against (yyyy-MM-ddTHH:mmZ); "
                                      "default: the wall clock. For reruns and tests.")
    add_lease_argument(parser, "the instance's replication lock")
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.replication.hive.feeds import directory_uri
    from toolkit.actions.replication.runner import ReplicationRequest, run_replication
    from toolkit.actions.replication.tables import TablePuller
    from toolkit.actions.replication.target_gate import TargetGate, warn_quality
    from toolkit.core.el.timestamps import parse_timestamp
    from toolkit.services.runtime.action_session import action_session
    from toolkit.services.runtime.feed_notices import FeedFailure, notify_feed_failure
    from toolkit.services.runtime.lifecycle import is_failure, was_told

    t = nominal(args, status)
    now = parse_timestamp(args.now, "--now") if args.now else \
        datetime.now(timezone.utc).replace(second=0, microsecond=0)
    window = None
    if (args.window_from is None) != (args.window_to is None):
        raise UsageError("Give both --from and --to for a catch-up window, or neither.")
    if args.window_from is not None:
        window = (parse_timestamp(args.window_from, "--from"), parse_timestamp(args.window_to, "--to"))
        if window[0] > window[1]:
            raise UsageError("--from is after --to: give the window's first instance, then its last.")
    repo = load_repo(args.repo)
    feed = repo.feed(args.feed)
    target, _ = target_of(repo, feed, args.target)
    sources = sources_of(repo, feed, args.source)  # before Spark starts: a bad call costs no JVM
    require_no_object_store(target, *(source.cluster for source in sources))
    status.add(target=target.name, source=args.source)
    is_table = feed.table_on(target.name) is not None
    if args.recopy and is_table:
        raise UsageError(f"--recopy is for file feeds; feed '{feed.name}' is a table on '{target.name}': replicate it "
                         "without --recopy.")
    if args.staged and not is_table:
        raise UsageError(f"--staged is for table feeds; feed '{feed.name}' is stored as files on '{target.name}'.")
    staged = directory_uri(args.staged, target, "--staged") if args.staged else None
    # table pullers delete staged folders on the target: the session's file system refuses its root
    with action_session("replication", feed.name, target, status, hive=is_table,
                        launcher=launcher_confs(feed)) as session:
        spark, fs = session.spark, session.fs
        pullers: list[TablePuller] = []

        def tables(table_feed: Feed, to: Cluster, sources: Sequence[Source], context: RunContext,
                   table_gate: TargetGate | None) -> TablePuller:
            pullers.append(TablePuller(spark, table_feed, to, sources, context, table_gate, staged=staged))
            return pullers[-1]

        notifier, run_id = session.notifier(counted=feed.notification is not None), status.run_id
        gate = TargetGate(spark, repo, feed, fs) if feed.quality is not None else None
        try:
            result = run_replication(repo, feed.name, target.name,
                                     ReplicationRequest(t, now, source=args.source, window=window, recopy=args.recopy),
                                     session.context(lease_seconds=args.lease, catalog=False, notifier=notifier),
                                     tables=tables, gate=gate)
            # a failed instance was told by its lifecycle (toolkit/services/runtime/lifecycle.py)
            for instance in result.instances:
                if gate is not None and instance.instance is not None:
                    warn_quality(notifier, repo, feed, instance.instance, instance.quality, run_id)
        except Exception as err:  # a ToolkitError of exit 1, or anything unforeseen, outside an instance's
            # lifecycle: failed (a usage error, a wait or a block is no failure to tell anyone about)
            if is_failure(err) and not was_told(err):
                notify_feed_failure(notifier, FeedFailure(repo, feed, "replication", t, run_id,
                                                          str(err) or type(err).__name__))
            raise
        finally:
            for puller in pullers:
                puller.close()
    for reason in result.reasons():
        print(f"replication: {reason}.", file=sys.stderr)
    status.add_counters(result.counters())
    if len(result.instances) == 1 and result.instances[0].instance is not None:
        status.add(instance=format_timestamp(result.instances[0].instance))
        status.add(record=result.instances[0].record)
    return result.status


def main() -> int:
    return run("replication", entry_parser(), _body)
