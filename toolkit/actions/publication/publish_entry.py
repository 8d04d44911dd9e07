"""The publish entrypoint's body: `toolkit publish` for clusters the CLI cannot read without Spark (hdfs://,
any non-local file system) and for table feeds (their partitions are in the metastore)."""

from __future__ import annotations

import argparse

from toolkit.actions.publication.publish import publish_instance
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.feed_session import feed_session
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("publish", "Record that an outside producer published an instance of a feed on a "
                                      "cluster: checks it is available, fingerprints it and writes its dataset "
                                      "event (producer external); exit 3 while it is not available.",
                           time_help="The instance time yyyy-MM-ddTHH:mmZ (UTC); default: now, to the minute.")
    parser.add_argument("--feed", required=True, help="The feed the instance belongs to.")
    parser.add_argument("--cluster", required=True, help="The cluster where the instance was written.")
    return parser


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    t = nominal(args, status)
    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    with feed_session("publish", feed, cluster, status) as session:
        published = publish_instance(repo, feed.name, cluster.name, t, session.fs, session.catalog,
                                     status.run_id)
    event = published.event
    print(f"publish: {'recorded' if published.recorded else 'already recorded'}: {event.kind} {event.feed} "
          f"{event.time} on {event.cluster} ({event.location})")
    status.add(kind=event.kind, event_id=event.event_id, recorded=published.recorded, location=event.location,
               fingerprint=event.fingerprint.to_json() if event.fingerprint else None)
    return Status.SUCCEEDED


def main() -> int:
    return run("publish", _parser(), _body)
