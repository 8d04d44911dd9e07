"""The record a retention call leaves for its feed under the cluster's working location (services/runtime/run_record.py:
`<working>/retention/<feed>/<instant>.json`), declared once by its fields: the runner writes it, `toolkit metrics`
reads it back, and the record codec checks it where it is read (a damaged one is named, never counted as nothing).
Fields that releases added later have defaults, so that an older record still reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkit.core.ledger.records import Minute


@dataclass(frozen=True)
class EvictedItem:
    """An instance gone from one location (`data`, `stats`, `meta`, `tmp`, or `table`): where it was and its bytes;
    where an archive moved it (`archived_to`), or a table's `partition` and whether its files went with it."""

    location: str
    time: Minute
    path: str | None
    bytes: int
    archived_to: str | None = None
    partition: str | None = None
    data_deleted: bool | None = None


@dataclass(frozen=True)
class RefusedItem:
    """An expired instance kept, and why: another feed's instance in, at or above its path (that `feed`'s
    `other_path`), or an archive that differs."""

    location: str
    time: Minute
    path: str
    reason: str
    feed: str | None = None
    other_path: str | None = None


@dataclass(frozen=True)
class RetentionRecord:
    """One retention call of `feed` on `cluster` at `time`: what it evicted, kept and met, and its counters."""

    feed: str
    cluster: str
    time: Minute
    run_id: str = ""
    action: str = "retention"
    cut_off: Minute | None = None
    action_taken: str = "delete"
    evicted: list[EvictedItem] = field(default_factory=list)
    refused: list[RefusedItem] = field(default_factory=list)
    skipped_locations: list[str] = field(default_factory=list)
    links_left: list[str] = field(default_factory=list)
    instances_evicted: int = 0
    instances_refused: int = 0
    bytes_freed: int = 0
    directories_removed: int = 0
    elapsed_seconds: float = 0.0
    took_over: str | None = None
