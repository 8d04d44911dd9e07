"""Everything `toolkit metrics` reports about one cluster, read in one pass over its ledger."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import NamedTuple, TypeVar

from toolkit.cli.metrics.action_readings import (
    REPLICATION,
    RETENTION,
    failed_notifications,
    ingest_reading,
    lineage_unsent,
    run_reading,
)
from toolkit.cli.metrics.entity_readings import SlaMisses, feed_reading, labels_of, process_reading
from toolkit.cli.metrics.readings import ActionReading, ClusterReadings, FeedReading, ProcessReading, Window
from toolkit.entities.model import Cluster, Feed, Process
from toolkit.entities.repo import ConfigRepo
from toolkit.forked_map import forked_map
from toolkit.ledger.store import Ledger
from toolkit.schedule.sla.check import check_slas

# entities: from this many, forked workers share the reading of their ledgers on each core (the decompression and
# parsing of a thousand processes' roll-ups is the command's time), when the ledger's file system allows it
READ_APART = 100
One = TypeVar("One")
Other = TypeVar("Other")


def read_cluster(repo: ConfigRepo, cluster: Cluster, ledger: Ledger, window: Window) -> ClusterReadings:
    """The readings of the cluster's feeds, processes (batch consumers have no instances to count) and actions."""
    fs = ledger.fs
    sla = SlaMisses.of(check_slas(repo, cluster.name, fs, ledger, window.now, window.first, window.now), window)
    feeds = sorted((feed for feed in repo.feeds.values() if feed.cluster(cluster.name) is not None),
                   key=lambda feed: feed.name)
    processes = sorted((process for process in repo.processes.values()
                        if process.cluster(cluster.name) is not None and not process.is_batch_consumer),
                       key=lambda process: process.name)
    reads = forked_map(partial(_entity_read, repo, cluster=cluster, ledger=ledger, window=window, sla=sla),
                       _mixed(feeds, processes), READ_APART, alone=not fs.shared_with_forks)
    of_feeds = [read for read in reads if isinstance(read, _FeedRead)]
    of_processes = [read for read in reads if isinstance(read, _ProcessRead)]
    entities: list[Feed | Process] = [*feeds, *processes]
    counts = [*(read.failed for read in of_feeds), *(read.failed for read in of_processes)]
    failed = tuple((labels_of(entity, cluster.name), entity.kind.value, count)
                   for entity, count in zip(entities, counts, strict=True) if count)
    return ClusterReadings(
        cluster.name, window, tuple(read.feed for read in of_feeds), tuple(read.process for read in of_processes),
        tuple(action for read in of_feeds for action in read.actions), lineage_unsent(fs, cluster, window), failed)


def _mixed(feeds: Sequence[One], processes: Sequence[Other]) -> list[One | Other]:
    """The feeds and the processes, each in its order, interleaved evenly: a worker's share of the list has as many
    of each as another's (a process's week takes some four times a feed's), and the order of each kind is kept."""
    def place(index: int, count: int) -> float:
        return (index + 0.5) / count

    ranked = [(place(n, len(feeds)), 0, n) for n in range(len(feeds))] + \
        [(place(n, len(processes)), 1, n) for n in range(len(processes))]
    return [feeds[n] if kind == 0 else processes[n] for _, kind, n in sorted(ranked)]


class _FeedRead(NamedTuple):
    """What a worker reads of one feed: its reading, its actions' newest runs and its failed notifications."""

    feed: FeedReading
    actions: tuple[ActionReading, ...]
    failed: int


class _ProcessRead(NamedTuple):
    process: ProcessReading
    failed: int


def _feed_read(feed: Feed, cluster: Cluster, ledger: Ledger, window: Window, sla: SlaMisses) -> _FeedRead:
    fs, labels = ledger.fs, labels_of(feed, cluster.name)
    actions = (run_reading(fs, cluster, RETENTION, labels), run_reading(fs, cluster, REPLICATION, labels),
               ingest_reading(fs, cluster, labels, window))
    return _FeedRead(feed_reading(feed, cluster, ledger, window, sla),
                     tuple(action for action in actions if action is not None),
                     failed_notifications(fs, cluster, feed, window))


def _process_read(repo: ConfigRepo, process: Process, cluster: Cluster, ledger: Ledger, window: Window,
                  sla: SlaMisses) -> _ProcessRead:
    return _ProcessRead(process_reading(repo, process, cluster, ledger, window, sla),
                        failed_notifications(ledger.fs, cluster, process, window))


def _entity_read(repo: ConfigRepo, entity: Feed | Process, cluster: Cluster, ledger: Ledger, window: Window,
                 sla: SlaMisses) -> _FeedRead | _ProcessRead:
    if isinstance(entity, Feed):
        return _feed_read(entity, cluster, ledger, window, sla)
    return _process_read(repo, entity, cluster, ledger, window, sla)
