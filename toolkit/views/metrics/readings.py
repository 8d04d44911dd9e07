"""What one call of `toolkit metrics` read from a cluster's ledger: typed records, one per entity or action, that
the collector turns into metric families. Counts are over the window (`Window`); timestamps are wall-clock seconds
since the epoch; a value the ledger does not know yet is None, and its metric is left out rather than given as 0."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from toolkit.errors import UsageError


@dataclass(frozen=True)
class Window:
    """The instances counted: those whose time is in (now - length, now]."""

    now: datetime
    length: timedelta

    def __post_init__(self) -> None:
        if self.length <= timedelta(0):
            raise UsageError(f"The window {self.length} is not positive: give --window as days(N) or hours(N).")
        if self.now.tzinfo is None:
            raise ValueError("a window's now must be aware")

    @property
    def first(self) -> datetime:
        return self.now - self.length

    def holds(self, t: datetime) -> bool:
        return self.first < t <= self.now


@dataclass(frozen=True)
class Labels:
    """Who a reading is about: its cluster, its kind's name, its pipelines (comma-joined, sorted) and its tags."""

    cluster: str
    name: str
    pipeline: str
    tags: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class FeedReading:
    labels: Labels
    instances: tuple[tuple[str, int], ...]  # (state, count) over the window, every state included
    last_published: float | None  # when the newest published instance was published
    newest_end: float | None  # the end (time plus frequency) of the newest published instance
    stale_after: float  # seconds of freshness beyond which the next instance is late: frequency plus slaHigh
    sla_misses: tuple[tuple[str, int], ...]  # (missed or late, count) over the window


@dataclass(frozen=True)
class ProcessReading:
    labels: Labels
    instances: tuple[tuple[str, int], ...]  # (status, count) over the window, every status included
    last_success: float | None  # when the newest successful instance ended
    attempts: int  # the attempts of the window's instances
    durations: tuple[float, ...]  # of the window's finished instances, their last attempt
    sla_misses: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ActionReading:
    """The newest run of an action on one feed (retention, replication, ingest), from its run record."""

    action: str
    labels: Labels
    last_run: float  # when its record was written
    bytes: int
    files: int
    records: int  # records written (ingest), over the window
    rejected: int  # records refused (ingest), over the window


@dataclass(frozen=True)
class ClusterReadings:
    cluster: str
    window: Window
    feeds: tuple[FeedReading, ...]
    processes: tuple[ProcessReading, ...]
    actions: tuple[ActionReading, ...]
    lineage_unsent: int  # OpenLineage events kept in the ledger and not taken by the backend, runs of the window
    notifications_failed: tuple[tuple[Labels, str, int], ...]  # (entity, kind, failed notices of the window)
