"""Everything `toolkit metrics` reports about one cluster: what is read once for the whole cluster (the SLA check,
the unsent lineage, the failed notices), then the readings of its entities, all of them or a part (a core's share
of a one-shot call)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from toolkit.core.entities.model import Cluster, Feed, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.orchestration.schedule.sla.check import check_slas
from toolkit.views.metrics.action_readings import (
    REPLICATION,
    RETENTION,
    failed_notifications,
    ingest_reading,
    lineage_unsent,
    run_reading,
)
from toolkit.views.metrics.entity_readings import SlaMisses, feed_reading, labels_of, process_reading
from toolkit.views.metrics.readings import ActionReading, ClusterReadings, FeedReading, Labels, Window

Entity = TypeVar("Entity")


@dataclass(frozen=True)
class ClusterScope:
    """What one collection reads: the cluster's feeds and processes (batch consumers have no instances to count),
    each kind by name, and the figures read once for all of them: the SLA check's misses (one pass over every
    entity's instances), the OpenLineage events the ledger keeps unsent, and the entities whose notices failed (a
    family of both kinds, whose text must not depend on how the entities were shared among cores)."""

    repo: ConfigRepo
    cluster: Cluster
    ledger: Ledger
    window: Window
    feeds: tuple[Feed, ...]
    processes: tuple[Process, ...]
    sla: SlaMisses
    lineage_unsent: int
    notifications_failed: tuple[tuple[Labels, str, int], ...]

    @classmethod
    def of(cls, repo: ConfigRepo, cluster: Cluster, ledger: Ledger, window: Window) -> ClusterScope:
        fs = ledger.fs
        feeds = sorted((feed for feed in repo.feeds.values() if feed.cluster(cluster.name) is not None),
                       key=lambda feed: feed.name)
        processes = sorted((process for process in repo.processes.values()
                            if process.cluster(cluster.name) is not None and not process.is_batch_consumer),
                           key=lambda process: process.name)
        sla = SlaMisses.of(check_slas(repo, cluster.name, ledger, window.now, window.first, window.now), window)
        entities: list[Feed | Process] = [*feeds, *processes]
        counts = [failed_notifications(fs, cluster, entity, window) for entity in entities]
        failed = tuple((labels_of(entity, cluster.name), entity.kind.value, count)
                       for entity, count in zip(entities, counts, strict=True) if count)
        return cls(repo, cluster, ledger, window, tuple(feeds), tuple(processes), sla,
                   lineage_unsent(fs, cluster, window), failed)

    @property
    def entities(self) -> int:
        return len(self.feeds) + len(self.processes)

    def read(self, index: int = 0, count: int = 1) -> ClusterReadings:
        """The readings of the `index`th of `count` parts of the entities, each kind cut at the same fractions (a
        process's week takes some four times a feed's, so a part has as many of each as another): the parts in
        order hold every entity once, each kind in its order. The cluster's own figures are every part's."""
        feeds = [_feed_read(feed, self.cluster, self.ledger, self.window, self.sla)
                 for feed in _cut(self.feeds, index, count)]
        processes = tuple(process_reading(self.repo, process, self.cluster, self.ledger, self.window, self.sla)
                          for process in _cut(self.processes, index, count))
        return ClusterReadings(
            self.cluster.name, self.window, tuple(read.feed for read in feeds), processes,
            tuple(action for read in feeds for action in read.actions), self.lineage_unsent,
            self.notifications_failed)


def _cut(entities: Sequence[Entity], index: int, count: int) -> Sequence[Entity]:
    return entities[len(entities) * index // count:len(entities) * (index + 1) // count]


class _FeedRead(NamedTuple):
    """What is read of one feed: its reading and its actions' newest runs."""

    feed: FeedReading
    actions: tuple[ActionReading, ...]


def _feed_read(feed: Feed, cluster: Cluster, ledger: Ledger, window: Window, sla: SlaMisses) -> _FeedRead:
    fs, labels = ledger.fs, labels_of(feed, cluster.name)
    actions = (run_reading(fs, cluster, RETENTION, labels), run_reading(fs, cluster, REPLICATION, labels),
               ingest_reading(fs, cluster, labels, window))
    return _FeedRead(feed_reading(feed, cluster, ledger, window, sla),
                     tuple(action for action in actions if action is not None))
