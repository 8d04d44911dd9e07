"""The quality_check entrypoint's body: a published instance of a feed checked on demand against the feed's suite
(or another suite of the config repo), for data that outside systems wrote and for backfills. Exit 0 when every
expectation holds and 1 when any fails, whatever the gate's `on-failure` says: this call publishes nothing, it
only tells. The check is a lineage run of its own (`quality.<feed>`) carrying the definition of the feed it
checked, whose input carries the assertions. It holds no lease and tells no one: it reads published data, which
safemode and a suspended feed leave alone."""

from __future__ import annotations

import argparse
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Feed, OnFailure, Quality, quality_gates
from toolkit.core.instances.availability import InstanceState, probe_instance
from toolkit.core.instances.feed_locations import FeedLocations, feed_locations
from toolkit.core.ledger.quality_results import summary
from toolkit.core.storage.filesystem import normalize_uri
from toolkit.errors import UsageError, WaitingError
from toolkit.services.openlineage.facts import DatasetUse, RunSubject
from toolkit.services.quality.assertions import assertions_of
from toolkit.services.quality.frames import file_instance, table_partition
from toolkit.services.quality.gate import QualityGate
from toolkit.services.runtime.action_session import ActionSession
from toolkit.services.runtime.entry_frame import common_parser, load_repo, nominal, run
from toolkit.services.runtime.feed_session import feed_session
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall
from toolkit.services.runtime.lineage import watched
from toolkit.services.runtime.status import StatusLine
from toolkit.statuses import Status

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


QUALITY_CHECK = ActionKind("quality check", "quality_check", "quality", "quality_check")


def _parser() -> argparse.ArgumentParser:
    parser = common_parser("quality_check", "Check a published instance of a feed against its data-quality suite "
                                            "(the feed's quality: suite, or --suite): exit 0 when every "
                                            "expectation holds, 1 when any fails, 3 while the instance is not "
                                            "available, 4 for a time outside the feed's validity. Nothing is "
                                            "published, moved or deleted.",
                           time_help="The instance time yyyy-MM-ddTHH:mmZ (UTC); default: now, to the minute.")
    parser.add_argument("--feed", required=True, help="The feed the instance belongs to.")
    parser.add_argument("--cluster", required=True, help="The cluster where the instance is.")
    parser.add_argument("--suite", metavar="PATH",
                        help="A Great Expectations suite file of the config repo to check instead of the feed's "
                             "own (for a feed that declares none, or to try a new suite on published data).")
    return parser


def _gates(feed: Feed, suite: str | None) -> tuple[Quality, ...]:
    if suite is not None:
        return (Quality(suite=suite, on_failure=OnFailure.BLOCK),)
    gates = quality_gates(feed)
    if not gates:
        raise UsageError(f"The feed '{feed.name}' declares no quality suite: add `quality: {{suite: "
                         f"quality/{feed.name}.json}}` to it, or give --suite.")
    return gates


def _body(args: argparse.Namespace, status: StatusLine) -> Status:
    t = nominal(args, status)
    repo = load_repo(args.repo)
    feed, cluster = repo.feed(args.feed), repo.cluster(args.cluster)
    gates = _gates(feed, args.suite)
    gate = QualityGate(repo.root)
    for quality in gates:  # a missing or broken suite is exit 2 before Spark starts
        gate.suite(quality.suite)
    call = FeedCall.of(QUALITY_CHECK, repo, feed, cluster, t)  # on the grid (2), inside the validity (4)
    with feed_session("quality_check", feed, cluster, status) as session:
        where = feed_locations(feed, cluster)
        use = DatasetUse.at(feed, cluster, [t])
        check = session.lineage().run(RunSubject(QUALITY_CHECK.job, feed.name, nominal=t, instance=call.instance),
                                      definition=call.definition)
        with watched(check, [use]):
            state = probe_instance(session.fs, where, feed.availability_flag, session.catalog, t)
            if not state.available:
                raise WaitingError(f"The instance {format_timestamp(t)} of feed '{feed.name}' is not "
                                   f"available on cluster '{cluster.name}' ({state.location}): call again once it "
                                   "is published.")
            results = gate.check(feed, t, gates, state.location,
                                 partial(_frame, session, feed, where, t, state))
        check.complete([DatasetUse.at(feed, cluster, [t], assertions=assertions_of(results))], [])
    failed = [result for result in results if not result.success]
    for result in failed:
        print(f"quality_check: {result.describe_failures()}")
    status.add(quality=summary(results), location=state.location, results=[result.to_json() for result in results])
    if failed:
        status.error = "; ".join(result.describe_failures() for result in failed)
    return Status.FAILED if failed else Status.SUCCEEDED


def _frame(session: ActionSession, feed: Feed, where: FeedLocations, t: datetime, state: InstanceState) -> DataFrame:
    """The published instance: the data folder of a file feed, or the partition of a table feed."""
    if where.table is None:
        return file_instance(session.spark, session.fs, feed, state.location)
    catalog, table = session.catalog(), where.table
    values = table.format(t, where.zone)
    directory = catalog.partition_location(table.database, table.table, values)
    if directory is None:
        raise WaitingError(f"The partition {state.location} of feed '{feed.name}' has no location in "
                           f"{catalog.description}: call again once it is published.")
    return table_partition(session.spark, session.fs, catalog.table_info(table.database, table.table).format,
                           f"{table.database}.{table.table}", normalize_uri(directory), values)


def main() -> int:
    return run("quality_check", _parser(), _body)
