"""The two definitions a plan compares, the time it is judged at, and the storage it reads: what every kind of
change (retention_changes.py, location_changes.py, validity_changes.py, replication_changes.py,
process_changes.py) is given. Adding a kind of change is one module with one function of a Comparison."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.entities.model import Cluster, Feed, FeedCluster, Process, ProcessCluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.views.plan.feed_storage import FeedStorage


@dataclass(frozen=True)
class FeedOnCluster:
    """A feed kept on a cluster in both definitions: its base and head definitions there."""

    old: Feed
    new: Feed
    cluster: Cluster

    @property
    def old_on(self) -> FeedCluster:
        on = self.old.cluster(self.cluster.name)
        assert on is not None
        return on

    @property
    def new_on(self) -> FeedCluster:
        on = self.new.cluster(self.cluster.name)
        assert on is not None
        return on


@dataclass(frozen=True)
class ProcessOnCluster:
    """A process run on a cluster in both definitions."""

    old: Process
    new: Process
    cluster: Cluster

    @property
    def old_on(self) -> ProcessCluster:
        on = self.old.cluster(self.cluster.name)
        assert on is not None
        return on

    @property
    def new_on(self) -> ProcessCluster:
        on = self.new.cluster(self.cluster.name)
        assert on is not None
        return on


@dataclass(frozen=True)
class Comparison:
    """`base` and `head` at `now`, on `cluster` only when given; `repo_path` is what commands it prints name."""

    base: ConfigRepo
    head: ConfigRepo
    now: datetime
    cluster: str | None
    repo_path: str
    storage: FeedStorage

    def concerns(self, cluster: str) -> bool:
        return self.cluster is None or self.cluster == cluster

    def kept_feeds(self) -> Iterator[FeedOnCluster]:
        """Every feed on a cluster in both definitions (the cluster as the head defines it)."""
        for old in self.base.feeds.values():
            new = self.head.feeds.get(old.name)
            if new is None:
                continue
            for on in old.clusters:
                cluster = self.head.clusters.get(on.name)
                if self.concerns(on.name) and cluster is not None and new.cluster(on.name) is not None:
                    yield FeedOnCluster(old, new, cluster)

    def kept_processes(self) -> Iterator[ProcessOnCluster]:
        """Every process on a cluster in both definitions."""
        for old in self.base.processes.values():
            new = self.head.processes.get(old.name)
            if new is None:
                continue
            for on in old.clusters:
                cluster = self.head.clusters.get(on.name)
                if self.concerns(on.name) and cluster is not None and new.cluster(on.name) is not None:
                    yield ProcessOnCluster(old, new, cluster)
