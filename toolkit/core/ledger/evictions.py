"""Evictions in batches: the `evicted` events one retention run records for a feed, in one file.

    evictions/<feed>/<batch id>~<first instance>~<last instance>.json

A retention run evicts tens of thousands of instances at once (a year of hourly data on its first run). An
event file and a journal entry for each would make it write twice as many files as it deletes, cost more than
the eviction itself and fill a namenode with small files. So a run's evictions of a feed are one record, an
`EvictionBatch`, and one journal entry of kind `evictions` (journal.py expands it). Each of its instances is
read as an ordinary `evicted` DatasetEvent (`Ledger.events`), with its own event id: the batch's instant and run,
and the discriminator of that instance, so plans and lineage name it exactly as they name any other event.

The name carries the batch's first and last instance, so that the events of one instance read only the batches
that can hold it (one listing, usually no read). Batches are written once under a new name and never changed,
which is why a reader may keep them parsed (`EvictionBatches` does).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property

from toolkit.core.el.timestamps import format_timestamp, instance_key, parse_instance_key
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import (
    EVICTED,
    CorruptRecordError,
    DatasetEvent,
    Minute,
    Stamp,
    event_discriminator,
    event_id_head,
    event_id_ms,
    parse_record,
    record_document,
    versioned,
    wall_clock_stamp,
)
from toolkit.core.storage.filesystem import FileSystem

# The kind of a batch's journal entry: it stands for every `evicted` event of the batch.
BATCH_KIND = "evictions"
_SEPARATOR = "~"
_SUFFIX = ".json"


def batch_id_of(event: DatasetEvent) -> str:
    """The id of the batch an `evicted` event would belong to: its instant and run, the batch's discriminator."""
    head = event.event_id.rsplit("-", 1)[0]
    return f"{head}-{event_discriminator(event.feed, '', BATCH_KIND)}"



@dataclass(frozen=True)
class PlannedEviction:
    """An instance a retention run is about to evict, and the location its `evicted` event will name."""

    time: Minute
    location: str


@dataclass(frozen=True)
class PlannedEvictions:
    """The plan of evictions a retention run writes before it evicts (`pending-evictions/<feed>.json`) and removes
    once their events are written: a run killed in between leaves it for the next run to finish."""

    feed: str
    run_id: str
    instances: list[PlannedEviction]

    @classmethod
    def of(cls, feed: str, run_id: str, planned: Iterable[tuple[datetime, str]]) -> PlannedEvictions:
        return cls(feed, run_id, [PlannedEviction(format_timestamp(t), where) for t, where in planned])

    @property
    def planned(self) -> list[tuple[datetime, str]]:
        return [(_instant(item.time), item.location) for item in self.instances]

    def to_bytes(self) -> bytes:
        """One line, encoded in C: a first run plans tens of thousands (`to_json` indents in pure Python)."""
        return json.dumps(record_document(self)).encode()


@dataclass(frozen=True)
class EvictedInstance:
    time: str
    location: str
    event_id: str


@dataclass(frozen=True)
class EvictionBatch:
    """The instances one run evicted of `feed` on `cluster`, published (made gone) at one instant."""

    batch_id: str
    feed: str
    cluster: str
    run_id: str
    producer: str
    published: Stamp
    instances: list[EvictedInstance] = field(default_factory=list)
    definition: Provenance | None = None  # the evicting definition (core/entities/provenance.py); older: none

    @classmethod
    def of(cls, feed: str, cluster: str, evicted: Iterable[tuple[datetime, str]], *, producer: str, run_id: str,
           published_ms: int, definition: Provenance | None = None) -> EvictionBatch:
        head = event_id_head(published_ms, run_id)  # each id is `event_id(published_ms, run_id, feed, time, kind)`
        instances = []
        for t, location in sorted(evicted, key=lambda item: item[0]):
            stamp = format_timestamp(t)
            instances.append(EvictedInstance(stamp, location, head + event_discriminator(feed, stamp, EVICTED)))
        return cls(head + event_discriminator(feed, "", BATCH_KIND), feed, cluster, run_id, producer,
                   wall_clock_stamp(published_ms / 1000), instances, definition)

    @classmethod
    def parse(cls, data: bytes, path: str) -> EvictionBatch:
        batch: EvictionBatch = parse_record(cls, data, path)  # each instance checked and built by its fields
        try:
            event_id_ms(batch.batch_id)
            [_instant(i.time) for i in batch.instances]
        except ValueError as err:
            raise CorruptRecordError(path, f"not a batch of evictions: {err}") from None
        return batch

    @property
    def file_name(self) -> str:
        first, last = self.instances[0].time, self.instances[-1].time
        return _SEPARATOR.join((self.batch_id, instance_key(_instant(first)), instance_key(_instant(last)))) + _SUFFIX

    @property
    def first(self) -> datetime:
        return _instant(self.instances[0].time)

    def event(self, instance: EvictedInstance) -> DatasetEvent:
        return DatasetEvent(feed=self.feed, cluster=self.cluster, time=instance.time, run_id=self.run_id,
                            producer=self.producer, location=instance.location, published=self.published,
                            kind=EVICTED, fingerprint=None, event_id=instance.event_id, definition=self.definition)

    def events(self) -> list[DatasetEvent]:
        return [self.event(instance) for instance in self.instances]

    @cached_property
    def _by_time(self) -> dict[str, list[EvictedInstance]]:
        found: dict[str, list[EvictedInstance]] = {}
        for instance in self.instances:
            found.setdefault(instance.time, []).append(instance)
        return found

    def events_at(self, t: datetime) -> list[DatasetEvent]:
        return [self.event(instance) for instance in self._by_time.get(format_timestamp(t), [])]

    def times(self) -> list[datetime]:
        return [_instant(instance.time) for instance in self.instances]


def _instant(text: str) -> datetime:
    """An instance time `yyyy-MM-ddTHH:mmZ` (fast: a batch holds tens of thousands); ValueError otherwise."""
    if len(text) != 17 or text[10] != "T" or text[16] != "Z":
        raise ValueError(f"the time {text!r} is not yyyy-MM-ddTHH:mmZ")
    return datetime.fromisoformat(text[:16]).replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class _Listed:
    """A batch file as its name describes it."""

    path: str
    batch_id: str
    first: datetime
    last: datetime


def _listed(path: str, name: str) -> _Listed | None:
    """The batch a file name stands for, or None (a temporary file, anything else)."""
    if name.startswith(".") or not name.endswith(_SUFFIX):
        return None
    parts = name[:-len(_SUFFIX)].split(_SEPARATOR)
    if len(parts) != 3:
        return None
    first, last = parse_instance_key(parts[1]), parse_instance_key(parts[2])
    try:
        event_id_ms(parts[0])
    except ValueError:
        return None
    return None if first is None or last is None else _Listed(path, parts[0], first, last)


class EvictionBatches:
    """The eviction batches of one cluster's ledger, each parsed once per reader."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout) -> None:
        self.fs, self.layout = fs, layout
        self._parsed: dict[str, EvictionBatch] = {}

    def write(self, batch: EvictionBatch) -> str:
        """Write a new batch (its name is new: an id of its own instant and run); returns its path."""
        path = f"{self.layout.evictions_folder(batch.feed)}/{batch.file_name}"
        self.fs.write_atomically(path, (_json(batch) + "\n").encode())
        self._parsed[path] = batch
        return path

    def feeds(self) -> list[str]:
        """The feeds that have eviction batches."""
        folder = self.layout.evictions_folder()
        if not self.fs.exists(folder):
            return []
        return sorted(status.name for status in self.fs.list(folder) if status.is_dir)

    def _list(self, feed: str) -> list[_Listed]:
        folder = self.layout.evictions_folder(feed)
        if not self.fs.exists(folder):
            return []
        found = (_listed(status.path, status.name) for status in self.fs.list(folder) if not status.is_dir)
        return sorted((item for item in found if item is not None), key=lambda item: item.batch_id)

    def _read(self, listed: _Listed) -> EvictionBatch:
        batch = self._parsed.get(listed.path)
        if batch is None:
            batch = EvictionBatch.parse(self.fs.read(listed.path), listed.path)
            if batch.batch_id != listed.batch_id or batch.instances == []:
                raise CorruptRecordError(listed.path, "its name and its content do not describe the same batch")
            self._parsed[listed.path] = batch
        return batch

    def covering(self, feed: str, t: datetime) -> list[EvictionBatch]:
        """The batches of `feed` whose instances span `t` (reads only those)."""
        return self.overlapping(feed, t, t)

    def overlapping(self, feed: str, first: datetime, last: datetime) -> list[EvictionBatch]:
        """The batches of `feed` whose instances span a time in [first, last] (reads only those)."""
        return [self._read(item) for item in self._list(feed) if item.first <= last and first <= item.last]

    def all(self, feed: str) -> list[EvictionBatch]:
        return [self._read(item) for item in self._list(feed)]

    def find(self, feed: str, batch_id: str) -> EvictionBatch | None:
        """The batch of that id, or None."""
        return next((self._read(item) for item in self._list(feed) if item.batch_id == batch_id), None)

    def of_run(self, feed: str, run_id: str) -> EvictionBatch | None:
        """The batch run `run_id` wrote for `feed`, or None (how a killed retention run's successor knows)."""
        # an id is `<19 characters of instant>-<run id>-<8 hex>`
        return next((self._read(item) for item in self._list(feed) if item.batch_id[20:-9] == run_id), None)


def _json(batch: EvictionBatch) -> str:
    """One line: a batch can hold tens of thousands of instances."""
    document = versioned({"batch_id": batch.batch_id, "feed": batch.feed, "cluster": batch.cluster,
                          "run_id": batch.run_id, "producer": batch.producer, "published": batch.published,
                          "instances": [{"time": i.time, "location": i.location, "event_id": i.event_id}
                                        for i in batch.instances],
                          **({"definition": batch.definition.to_json()} if batch.definition is not None else {})})
    return json.dumps(document, sort_keys=True)
