"""The compaction entrypoint's body: parse the call, check it before Spark starts, compact, report."""

from __future__ import annotations

import argparse

from toolkit.actions.ingest.compaction import compaction_call
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.feed_session import feed_session
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("compaction", "Rewrite a closed instance of a streamed feed, made of many batch files, into "
                                      "few (the feed's compaction.target-size, default 128MB), atomically: a reader "
                                      "sees the old files or the new ones, never a mix.",
                           time_help="The instance to compact, yyyy-MM-ddTHH:mmZ (UTC).")
    parser.add_argument("--feed", required=True, help="The streamed feed (it has an ingest section).")
    parser.add_argument("--cluster", required=True, help="The cluster whose instance is compacted.")
    parser.prog = "compact.py"  # the action is `compaction`, the script entrypoints/compact.py
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    from toolkit.actions.ingest.compaction import compact_instance

    t = nominal(args, status)
    call = compaction_call(load_repo(args.repo), args.feed, args.cluster, t)  # before Spark: a bad call costs no JVM
    with feed_session("compact", call.feed, call.cluster, status) as session:
        notifier = session.notifier(counted=call.feed.notification is not None)
        result = compact_instance(session.spark, call, session.context(catalog=False, notifier=notifier))
    r = result.record
    print(f"compaction: {r.instance}: {r.files_before} files ({r.bytes_before} bytes) into {r.files_after} "
          f"({r.bytes_after} bytes), {r.rows} rows")
    status.add(**result.counters())
    return Status.SUCCEEDED


def main() -> int:
    return run("compaction", _parser(), _body)
