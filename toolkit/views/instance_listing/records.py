"""What the listing says of each instance, and of the window: typed, immutable, and as JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.ledger.records import DatasetEvent


class ListingState(str, Enum):
    """Falcon's FeedInstanceStatus (AVAILABLE, PARTIAL, MISSING, EMPTY), and what the ledger adds: an instance that
    retention evicted or archived is no longer merely missing."""

    AVAILABLE = "AVAILABLE"  # its flag is there, or (a feed without one) data is; or it is there and published
    PARTIAL = "PARTIAL"  # its folder is there without the feed's availability flag, and it was not published
    EMPTY = "EMPTY"  # a feed without a flag: its folder is there without a visible file, and it was not published
    MISSING = "MISSING"  # nothing is there, and retention did not take it
    EVICTED = "EVICTED"  # nothing is there: the ledger's newest event of it is retention's deletion
    ARCHIVED = "ARCHIVED"  # nothing is there: retention's archive action moved it to `archive`

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class RunRef:
    """The run of a dataset event: who (`process:<name>`, `replication:<source>`, `external`, `retention` ...),
    which run, and when it recorded the event (UTC, to the second)."""

    producer: str
    run_id: str
    at: str

    @classmethod
    def of(cls, event: DatasetEvent | None) -> RunRef | None:
        return None if event is None else cls(event.producer, event.run_id, event.published)

    def to_json(self) -> dict[str, str]:
        return {"producer": self.producer, "run_id": self.run_id, "at": self.at}


@dataclass(frozen=True)
class ListedInstance:
    """One instance of the window: its state and path; the bytes of its tree and when it was created (its flag's
    modification time, else its folder's), None where nothing is there; the run whose publication is the newest
    (None: the ledger has none, an outside producer's data); retention's eviction when that is the newest event;
    where the archive action put it; the symbolic links met on the way to it or in it, none followed."""

    time: datetime
    state: ListingState
    path: str
    size: int | None
    created_ms: int | None
    produced_by: RunRef | None
    evicted_by: RunRef | None
    archive: str | None
    links: tuple[str, ...]

    @property
    def created(self) -> str | None:
        """The creation time, ISO 8601 in UTC to the second."""
        if self.created_ms is None:
            return None
        try:
            return datetime.fromtimestamp(self.created_ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (ValueError, OverflowError, OSError):  # a time no calendar holds (a clock set to year 10000): unknown
            return None

    def to_json(self) -> dict[str, object]:
        return {"time": format_timestamp(self.time), "state": self.state.value, "path": self.path, "size": self.size,
                "created": self.created,
                "run": self.produced_by.to_json() if self.produced_by is not None else None,
                "evicted": self.evicted_by.to_json() if self.evicted_by is not None else None,
                "archive": self.archive, "links": list(self.links)}


@dataclass(frozen=True)
class Listing:
    """The instances of a feed on a cluster in [first, last], oldest first."""

    feed: str
    cluster: str
    first: datetime
    last: datetime
    availability_flag: str | None
    instances: tuple[ListedInstance, ...]

    def counts(self) -> dict[ListingState, int]:
        """How many instances are in each state, every state named (0 included), in the enum's order."""
        counted = Counter(instance.state for instance in self.instances)
        return {state: counted[state] for state in ListingState}

    @property
    def links(self) -> tuple[str, ...]:
        """Every symbolic link the listing met and did not follow, once each."""
        return tuple(sorted({link for instance in self.instances for link in instance.links}))

    def to_json(self) -> dict[str, object]:
        return {"feed": self.feed, "cluster": self.cluster, "from": format_timestamp(self.first),
                "to": format_timestamp(self.last), "availability_flag": self.availability_flag,
                "summary": {state.value: count for state, count in self.counts().items()},
                "instances": [instance.to_json() for instance in self.instances]}
