"""When an instance got there, from the ledger, else from the file system: a feed's arrival is its first
publication event (a producing process, a replication, `toolkit publish`); an outside producer that records no
event is judged by its availability flag's modification time, or the instance folder's for a feed without a flag
(a table feed without events has no arrival known here: reading the catalog would need Spark). A process
instance's first start and its success come from its attempt records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from toolkit.core.entities.model import Feed
from toolkit.core.instances.feed_locations import FeedLocations, under_root
from toolkit.core.ledger.records import EVICTED, record_stamp
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileSystem, normalize_uri
from toolkit.statuses import Status

EVENT, FLAG, FOLDER = "event", "flag", "folder"


@dataclass(frozen=True)
class Arrival:
    at: datetime | None
    source: str | None  # event, flag or folder; None when it has not arrived


def feed_arrival(ledger: Ledger, fs: FileSystem, feed: Feed, where: FeedLocations, t: datetime) -> Arrival:
    events = [event for event in ledger.events(feed.name, t) if event.kind != EVICTED]
    if events:
        return Arrival(record_stamp(events[0].published), EVENT)
    if where.is_table:
        return Arrival(None, None)
    folder = normalize_uri(under_root(where.root, where.paths["data"].format(t, where.zone)))
    if feed.availability_flag:
        status = fs.status(f"{folder.rstrip('/')}/{feed.availability_flag}")
        found = status is not None and not status.is_dir
        source = FLAG
    else:
        status = fs.status(folder)
        found = status is not None and status.is_dir
        source = FOLDER
    if not found or status is None:
        return Arrival(None, None)
    return Arrival(datetime.fromtimestamp(status.modification_time / 1000, timezone.utc), source)


@dataclass(frozen=True)
class ProcessTimes:
    started: datetime | None  # the first attempt's start
    succeeded: datetime | None  # the end of the first successful attempt


def process_times(ledger: Ledger, process: str, t: datetime) -> ProcessTimes:
    attempts = ledger.attempts(process, t)
    starts = [record_stamp(record.started) for record in attempts]
    ends = [record_stamp(record.ended) for record in attempts if record.status == Status.SUCCEEDED and record.ended]
    return ProcessTimes(min(starts, default=None), min(ends, default=None))
