"""Everything `toolkit metrics` reports about one cluster: what is read once for the whole cluster (the SLA check,
the unsent lineage), then the readings of its entities, all of them or a part (a core's share of a one-shot call)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
from toolkit.cli.metrics.readings import ActionReading, ClusterReadings, FeedReading, Labels, ProcessReading, Window
from toolkit.entities.model import Cluster, Feed, Process
from toolkit.entities.repo import ConfigRepo
from toolkit.ledger.store import Ledger
from toolkit.schedule.sla.check import check_slas

Entity = TypeVar("Entity")


@dataclass(frozen=True)
class ClusterScope:
    """What one collection reads: the cluster's feeds and processes (batch consumers have no instances to count),
    each kind by name, and the figures read once for all of them: the SLA check's misses (one pass over every
    entity's instances) and the OpenLineage events the ledger keeps unsent."""

    repo: ConfigRepo
    cluster: Cluster
    ledger: Ledger
    window: Window
    feeds: tuple[Feed, ...]
    processes: tuple[Process, ...]
    sla: SlaMisses
    lineage_unsent: int

    @classmethod
    def of(cls, repo: ConfigRepo, cluster: Cluster, ledger: Ledger, window: Window) -> ClusterScope:
        fs = ledger.fs
        feeds = sorted((feed for feed in repo.feeds.values() if feed.cluster(cluster.name) is not None),
                       key=lambda feed: feed.name)
        processes = sorted((process for process in repo.processes.values()
                            if process.cluster(cluster.name) is not None and not process.is_batch_consumer),
                           key=lambda process: process.name)
        sla = SlaMisses.of(check_slas(repo, cluster.name, fs, ledger, window.now, window.first, window.now), window)
        return cls(repo, cluster, ledger, window, tuple(feeds), tuple(processes), sla,
                   lineage_unsent(fs, cluster, window))

    @property
    def entities(self) -> int:
        return len(self.feeds) + len(self.processes)

    def read(self, index: int = 0, count: int = 1) -> ClusterReadings:
        """The readings of the `index`th of `count` parts of the entities, each kind cut at the same fractions (a
        process's week takes some four times a feed's, so a part has as many of each as another): the parts in
        order hold every entity once, each kind in its order. The cluster's own figures are every part's."""
        feeds = [_feed_read(feed, self.cluster, self.ledger, self.window, self.sla)
                 for feed in _cut(self.feeds, index, count)]
        processes = [_process_read(self.repo, process, self.cluster, self.ledger, self.window, self.sla)
                     for process in _cut(self.processes, index, count)]
        failed = tuple((read.labels, kind, read.failed)
                       for kind, reads in (("feed", feeds), ("process", processes)) for read in reads if read.failed)
        return ClusterReadings(
            self.cluster.name, self.window, tuple(read.feed for read in feeds),
            tuple(read.process for read in processes), tuple(action for read in feeds for action in read.actions),
            self.lineage_unsent, failed)


def read_cluster(repo: ConfigRepo, cluster: Cluster, ledger: Ledger, window: Window) -> ClusterReadings:
    """The readings of the cluster's feeds, processes and actions."""
    return ClusterScope.of(repo, cluster, ledger, window).read()


def _cut(entities: Sequence[Entity], index: int, count: int) -> Sequence[Entity]:
    return entities[len(entities) * index // count:len(entities) * (index + 1) // count]


class _FeedRead(NamedTuple):
    """What is read of one feed: its reading, its actions' newest runs and its failed notifications."""

    feed: FeedReading
    actions: tuple[ActionReading, ...]
    failed: int

    @property
    def labels(self) -> Labels:
        return self.feed.labels


class _ProcessRead(NamedTuple):
    process: ProcessReading
    failed: int

    @property
    def labels(self) -> Labels:
        return self.process.labels


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
