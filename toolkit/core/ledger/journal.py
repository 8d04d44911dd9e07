"""The journal: every dataset event of a cluster, listed by the hour it was published, so that a consumer reads
only what is new instead of every feed's event folders.

    journal/<yyyyMMdd>/<HH>/<event id>~<feed>~<yyyyMMddTHHmmZ>~<kind>   an empty file per event
    journal-late/<event id>~<feed>~<yyyyMMddTHHmmZ>~<kind>              an entry a repair wrote late
    journal-rebuilt                                                    every event older than the journal is in it

The bucket is the UTC hour of the event id's millisecond stamp, and the name says all a consumer needs (id,
feed, instance, kind): listing a bucket is reading it. A retention run's evictions are one entry of kind
`evictions` named by its batch (evictions.py): listing expands it, with one read, into the entry of each of its
`evicted` events. Entries are created exclusively, so writing one twice
changes nothing. The ledger writes the entry right after the event file (`Ledger._record`); a producer killed
between the two leaves an event without entry, which its next run repairs (`ensure`). A repaired entry can be
older than a consumer's lag window, so a repair first leaves a copy in `journal-late/`, which consumers always
read. A ledger written before the journal existed is listed once from its event folders (`rebuild`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from toolkit.core.el.timestamps import instance_key, parse_instance_key
from toolkit.core.ledger.evictions import BATCH_KIND, EvictionBatch, EvictionBatches, batch_id_of
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import EVICTED, DatasetEvent, event_id_ms, versioned, wall_clock_stamp
from toolkit.core.storage.filesystem import NAME_BYTES, FileStatus, FileSystem
from toolkit.errors import UsageError

SEPARATOR = "~"  # in neither event ids, feed names, instance keys nor kinds


@dataclass(frozen=True)
class JournalEntry:
    """One event as the journal names it; `time` is the instance time (UTC)."""

    event_id: str
    feed: str
    time: datetime
    kind: str

    @classmethod
    def of(cls, event: DatasetEvent) -> JournalEntry:
        return cls(event.event_id, event.feed, event.nominal, event.kind)

    @classmethod
    def of_batch(cls, batch: EvictionBatch) -> JournalEntry:
        """The one entry of a batch of evictions (its first instance stands in the name)."""
        return cls(batch.batch_id, batch.feed, batch.first, BATCH_KIND)

    @classmethod
    def parse(cls, name: str) -> JournalEntry | None:
        """The entry a file name stands for, or None for a name that is not one (a temporary file)."""
        parts = name.split(SEPARATOR)
        if len(parts) != 4 or not parts[0] or parts[0].startswith("."):
            return None
        t = parse_instance_key(parts[2])
        try:
            event_id_ms(parts[0])
        except ValueError:
            return None
        return None if t is None else cls(parts[0], parts[1], t, parts[3])

    @property
    def name(self) -> str:
        return SEPARATOR.join((self.event_id, self.feed, instance_key(self.time), self.kind))

    def require_fits(self) -> None:
        """UsageError (exit 2) when the entry's name is longer than a file name may be: checked before the event
        or batch it stands for is written, so the ledger never holds a record that consumers cannot see."""
        size = len(self.name.encode())
        if size > NAME_BYTES:
            raise UsageError(
                f"An event of feed '{self.feed}' would have a journal entry of {size} bytes, over the {NAME_BYTES} "
                "bytes a file name may have (it holds the event id, the feed's name, the instance and the kind): "
                "nothing was recorded; give the feed a name of at most 128 characters.")

    @property
    def ms(self) -> int:
        """The publication instant, milliseconds since the epoch (the id's stamp)."""
        return event_id_ms(self.event_id)


def _entries(listed: list[FileStatus]) -> list[JournalEntry]:
    """The entries a folder's listing holds: files named as entries (a folder is never one)."""
    return [entry for entry in (JournalEntry.parse(status.name) for status in listed if not status.is_dir)
            if entry is not None]


def _bucket(ms: int) -> tuple[str, str]:
    hour = datetime.fromtimestamp(ms // 1000, timezone.utc)
    return f"{hour:%Y%m%d}", f"{hour:%H}"


class Journal:
    """The journal of one cluster's ledger."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout, batches: EvictionBatches) -> None:
        self.fs, self.layout, self.batches = fs, layout, batches
        self._no_links: set[str] = set()  # folders found free of links on the way from the ledger's root

    def path(self, entry: JournalEntry) -> str:
        day, hour = _bucket(entry.ms)
        return f"{self.layout.journal_folder()}/{day}/{hour}/{entry.name}"

    def write(self, event: DatasetEvent) -> None:
        """The event's entry (nothing when it exists)."""
        self._create(self.path(JournalEntry.of(event)))

    def write_batch(self, batch: EvictionBatch) -> None:
        """The one entry of a batch of evictions, written right after the batch (nothing when it exists)."""
        self._create(self.path(JournalEntry.of_batch(batch)))

    def require_writable(self, entry: JournalEntry) -> None:
        """Refuse, before its event or batch is written, an entry that could not be written: a name longer than a
        file name may be (UsageError), or a symbolic link on the way to its folder (StorageError)."""
        entry.require_fits()
        self._refuse_links(self.path(entry).rsplit("/", 1)[0])

    def _refuse_links(self, folder: str) -> None:
        """A link at `journal/` or a bucket would put entries outside the ledger, where no consumer reads them:
        each folder is checked once per Journal."""
        if folder not in self._no_links:
            self.fs.refuse_links_below(self.layout.root, folder)
            self._no_links.add(folder)

    def _create(self, path: str) -> None:
        """Create an entry, never through a symbolic link."""
        self._refuse_links(path.rsplit("/", 1)[0])
        self.fs.create_exclusive(path, b"")

    def ensure(self, event: DatasetEvent) -> bool:
        """Write the entry of an event recorded earlier if it has none (its producer was killed in between);
        True when it was missing. An eviction recorded in a batch has its batch's entry. The late copy comes
        first: a repair killed after it leaves it, and the next repair writes the entry."""
        if event.kind == EVICTED:
            batch = self.batches.find(event.feed, batch_id_of(event))
            if batch is not None:
                return self.ensure_batch(batch)
        return self._ensure(JournalEntry.of(event))

    def ensure_batch(self, batch: EvictionBatch) -> bool:
        """`ensure` for the entry of a batch of evictions (a retention run killed between the two)."""
        return self._ensure(JournalEntry.of_batch(batch))

    def _ensure(self, entry: JournalEntry) -> bool:
        found = self.fs.status(self.path(entry))
        if found is not None and not found.is_dir:
            return False
        self._create(f"{self.layout.journal_late_folder()}/{entry.name}")
        if found is None:  # a folder at the entry's name (made by hand) is no entry: the late copy stands for it
            self._create(self.path(entry))
        return True

    def entries_since(self, position: str | None, lag: timedelta) -> list[JournalEntry]:
        """The entries published from `lag` before the event id `position` on (every entry when it is None),
        oldest id first. Lists only the hour buckets from there on; reads no file."""
        start = None if position is None else event_id_ms(position) - int(lag.total_seconds() * 1000)
        listed = self._listed(None if start is None else _bucket(max(start, 0)))
        return self._expanded([entry for entry in listed if start is None or entry.ms >= start])

    def _listed(self, first: tuple[str, str] | None) -> list[JournalEntry]:
        """The entries of the hour buckets from `first` (day, hour) on, every bucket when None, as listed."""
        root = self.layout.journal_folder()
        if not self.fs.exists(root):
            return []
        found: list[JournalEntry] = []
        for day in sorted(s.name for s in self.fs.list(root) if s.is_dir and s.name.isdigit()):
            if first is not None and day < first[0]:
                continue
            for hour in sorted(s.name for s in self.fs.list(f"{root}/{day}") if s.is_dir):
                if first is not None and (day, hour) < first:
                    continue
                found += _entries(self.fs.list(f"{root}/{day}/{hour}"))
        return found

    def late_entries(self) -> list[JournalEntry]:
        """The entries repairs wrote after their event (usually none), oldest id first."""
        folder = self.layout.journal_late_folder()
        if not self.fs.exists(folder):
            return []
        return self._expanded(_entries(self.fs.list(folder)))

    def _expanded(self, entries: list[JournalEntry]) -> list[JournalEntry]:
        """The entries with each batch of evictions replaced by the entries of its events, oldest id first. A
        batch entry without its batch (a hand-deleted file) stands for nothing."""
        found = []
        for entry in entries:
            if entry.kind != BATCH_KIND:
                found.append(entry)
                continue
            batch = self.batches.find(entry.feed, entry.event_id)
            if batch is not None:
                found += [JournalEntry(i.event_id, entry.feed, t, EVICTED) for i, t in zip(batch.instances,
                                                                                          batch.times(), strict=True)]
        return sorted(found, key=lambda entry: entry.event_id)

    def ensure_rebuilt(self) -> None:
        """Rebuild once per ledger: a ledger whose events predate the journal gets their entries."""
        if not self.fs.exists(self.layout.journal_rebuilt()):
            self.rebuild()

    def rebuild(self) -> int:
        """Write the entry of every event in the event folders (those written before the journal existed), then
        the `journal-rebuilt` marker; returns how many events were listed. Entries are created exclusively, so
        a rebuild killed half-way is simply run again (the marker is written last). The journal is listed first:
        an event whose entry it holds (a ledger written since the journal exists: all of them) is neither read nor
        written again, which on WebHDFS saves five calls per event."""
        journaled = {(entry.event_id, entry.feed, instance_key(entry.time)) for entry in self._listed(None)}
        events = 0
        root = self.layout.events_folder()
        if self.fs.exists(root):
            for feed in (s for s in self.fs.list(root) if s.is_dir):
                for instance in (s for s in self.fs.list(feed.path) if s.is_dir and parse_instance_key(s.name)):
                    for status in self.fs.list(instance.path):
                        if status.name.endswith(".json") and not status.name.startswith("."):
                            if (status.name[:-len(".json")], feed.name, instance.name) not in journaled:
                                self.write(DatasetEvent.parse(self.fs.read(status.path), status.path))
                            events += 1
        for feed_name in self.batches.feeds():
            for batch in self.batches.all(feed_name):
                if (batch.batch_id, feed_name, instance_key(batch.first)) not in journaled:
                    self.write_batch(batch)
                events += len(batch.instances)
        marker = versioned({"rebuilt": wall_clock_stamp(datetime.now(timezone.utc).timestamp()), "events": events})
        self.fs.write_atomically(self.layout.journal_rebuilt(), (json.dumps(marker, sort_keys=True) + "\n").encode())
        return events
