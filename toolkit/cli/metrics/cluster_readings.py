"""Everything `toolkit metrics` reports about one cluster, read in one pass over its ledger."""

from __future__ import annotations

from functools import partial

from toolkit.cli.metrics.action_readings import (
    REPLICATION,
    RETENTION,
    failed_notifications,
    ingest_reading,
    lineage_unsent,
    run_reading,
)
from toolkit.cli.metrics.entity_readings import feed_reading, labels_of, process_reading
from toolkit.cli.metrics.readings import ActionReading, ClusterReadings, Window
from toolkit.entities.model import Cluster, Feed, Process
from toolkit.entities.repo import ConfigRepo
from toolkit.forked_map import forked_map
from toolkit.ledger.store import Ledger
from toolkit.schedule.sla.check import check_slas

# entities: from this many, forked workers share the reading of their ledgers on each core (the decompression and
# parsing of a thousand processes' roll-ups is the command's time), when the ledger's file system allows it
READ_APART = 100


def read_cluster(repo: ConfigRepo, cluster: Cluster, ledger: Ledger, window: Window) -> ClusterReadings:
    """The readings of the cluster's feeds, processes (batch consumers have no instances to count) and actions."""
    fs = ledger.fs
    sla = check_slas(repo, cluster.name, fs, ledger, window.now, window.first, window.now)
    feeds = sorted((feed for feed in repo.feeds.values() if feed.cluster(cluster.name) is not None),
                   key=lambda feed: feed.name)
    processes = sorted((process for process in repo.processes.values()
                        if process.cluster(cluster.name) is not None and not process.is_batch_consumer),
                       key=lambda process: process.name)
    actions: list[ActionReading | None] = []
    for feed in feeds:
        labels = labels_of(feed, cluster.name)
        actions += [run_reading(fs, cluster, RETENTION, labels), run_reading(fs, cluster, REPLICATION, labels),
                    ingest_reading(fs, cluster, labels, window)]
    entities: list[Feed | Process] = [*feeds, *processes]
    failed = tuple((labels_of(entity, cluster.name), entity.kind.value, count) for entity in entities
                   if (count := failed_notifications(fs, cluster, entity, window)))
    return ClusterReadings(
        cluster.name, window,
        tuple(forked_map(partial(feed_reading, cluster=cluster, ledger=ledger, window=window, sla=sla), feeds,
                         READ_APART, alone=not fs.shared_with_forks)),
        tuple(forked_map(partial(process_reading, repo, cluster=cluster, ledger=ledger, window=window, sla=sla),
                         processes, READ_APART, alone=not fs.shared_with_forks)),
        tuple(action for action in actions if action is not None),
        lineage_unsent(fs, cluster, window), failed)
