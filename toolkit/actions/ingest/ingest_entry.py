"""The ingest entrypoint's body: parse the call, start Spark for the cluster, run the ingest, report. An instance
that a `block` quality gate held back in this call makes it FAILED (exit 1) once everything found is ingested;
one held back by an earlier call, unchanged since, is only said (`instances_held`): closing_gate.py."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from toolkit.services.runtime.entry_frame import common_parser, load_repo, run, seconds
from toolkit.services.runtime.feed_session import feed_session
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status

if TYPE_CHECKING:
    from toolkit.actions.ingest.runner import IngestResult


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("ingest", "Ingest the records that producers drop as files into a feed's landing folder "
                                     "(its ingest section): parsed, committed into the feed's instances (folders, "
                                     "or partitions of its table) in "
                                     "micro-batches exactly once, rejected records written to its dead letters, "
                                     "and the instances the watermark has passed closed (flag and dataset event) "
                                     "once they pass the feed's quality suites.",
                           time_help="Ignored by ingest (records carry their own time); accepted for schedulers "
                                     "that pass one.")
    parser.add_argument("--feed", required=True, help="The streamed feed (it has an ingest section).")
    parser.add_argument("--cluster", required=True, help="The cluster whose landing folder is read and written to.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true",
                      help="Ingest everything in the landing folder now, in micro-batches, then exit (the default: "
                           "for cron).")
    mode.add_argument("--for", dest="seconds", type=seconds, metavar="SECONDS",
                      help="Keep ingesting new files for this many seconds, then stop.")
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.ingest.runner import run_ingest

    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    with feed_session("ingest", feed, cluster, status) as session:
        is_table = feed.table_on(cluster.name) is not None
        notifier = session.notifier(counted=feed.notification is not None)
        context = session.context(catalog=is_table, notifier=notifier)
        result = run_ingest(session.spark, repo, feed.name, cluster.name, context, seconds=args.seconds)
    print(f"ingest: {result.records} records in {result.batches} batch(es) into {len(result.instances)} instances of "
          f"{feed.name} on {cluster.name}; {result.rejected} rejected; {result.moved} landing file(s) moved to "
          f"_ingested; closed: {', '.join(result.closed) or 'none'}")
    _say_landing(result)
    if result.held:
        print(f"ingest: held back by a blocking quality suite in an earlier call, unchanged since: "
              f"{', '.join(result.held)} (fix their data or their suite, then call again)")
    status.add(**result.counters())
    if not result.blocked:
        return Status.SUCCEEDED
    status.error = blocked_error(feed.name, cluster.name, result.blocked)
    print(f"ingest: {status.error}", file=sys.stderr, flush=True)
    return Status.FAILED


def _say_landing(result: IngestResult) -> None:
    """What became of the landing folder's files beyond the counts, for the person reading stderr."""
    if result.refused:
        print(f"ingest: refused {', '.join(result.refused)} in the landing folder of feed '{result.feed}' unread "
              "(symbolic links are never followed; the dead letters say why each): drop readable files "
              "themselves.", file=sys.stderr)
    if result.left:
        print(f"ingest: {', '.join(result.left)} grew while read: kept in the landing folder of feed "
              f"'{result.feed}', the bytes appended are read by the next call.", file=sys.stderr)
    if result.folders:
        print(f"ingest: the folder(s) {', '.join(result.folders)} in the landing folder of feed '{result.feed}' are "
              "not read: producers drop files directly into it.", file=sys.stderr)


def blocked_error(feed: str, cluster: str, blocked: list[str]) -> str:
    """The status line's error of a call whose gates held instances back (what each failed is on stdout, in the
    closing records and in the notification)."""
    return (f"The instance(s) {', '.join(blocked)} of feed '{feed}' on cluster '{cluster}' failed a blocking quality "
            "suite and were not published (no flag, no dataset event): fix their data or their suite, then call "
            "ingest again; the rest was ingested.")


def main() -> int:
    return run("ingest", _parser(), _body)
