"""Reading and writing one cluster's ledger: process instance and attempt records, late checks, dataset
events, the instance locks and the `parallel` slots. The records and the layout are defined beside it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from itertools import groupby
from operator import attrgetter
from types import MappingProxyType
from typing import Any, TypeVar

from toolkit.core.el.timestamps import format_timestamp, instance_key, parse_instance_key
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.attempt_logs import CappedLog, masked_log
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.evictions import EvictionBatch, EvictionBatches, PlannedEvictions
from toolkit.core.ledger.holds import Hold
from toolkit.core.ledger.instance_states import InstanceOutline, InstanceState, Outlines
from toolkit.core.ledger.journal import Journal, JournalEntry
from toolkit.core.ledger.kill_requests import KillRequest
from toolkit.core.ledger.layout import LedgerLayout, partition_key
from toolkit.core.ledger.locks import Acquired, Lease, LeaseDetails, LeaseLock
from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import (
    EVICTED,
    PUBLISHED,
    REPLACED,
    AttemptRecord,
    DatasetEvent,
    InstanceRecord,
    LateCheck,
    PublicationFacts,
    event_id,
    event_id_ms,
    event_json,
    late_checks_json,
    parse_late_checks,
    parse_record,
    record_time,
    to_json,
    wall_clock_stamp,
)
from toolkit.core.ledger.rollup_records import (
    month_of,
    read_rollup,
    read_rollup_digest,
    read_rollup_states,
    rolled_months,
)
from toolkit.core.storage.filesystem import FileSystem

Read = TypeVar("Read")  # what a reader of instances reads of each

# A killed run's lock is taken over this long after its last renewal (renewed every third of it).
DEFAULT_LEASE_SECONDS = 60.0


_YEAR_MONTH = attrgetter("year", "month")


@lru_cache(maxsize=64)
def _by_month(times: tuple[datetime, ...]) -> Mapping[tuple[int, int], tuple[datetime, ...]]:
    """`times` by (year, month), no text made per instance: computed once for the processes of a window that ask for
    the same times (the metrics of a thousand hourly processes ask for the same 168), and shared, so read only."""
    by_month: dict[tuple[int, int], list[datetime]] = {}
    for month, each in groupby(times, _YEAR_MONTH):
        by_month.setdefault(month, []).extend(each)
    return MappingProxyType({month: tuple(each) for month, each in by_month.items()})


_EVENT_ORDER = attrgetter("event_id")  # the publication instant first: the order events were recorded in


def _is_event_file(name: str) -> bool:
    """An event's file in an instance's event folder (not a temporary file of one being written)."""
    return name.endswith(".json") and not name.startswith(".")


class Ledger:
    def __init__(self, fs: FileSystem, layout: LedgerLayout, lease_seconds: float = DEFAULT_LEASE_SECONDS,
                 clock: Callable[[], float] | None = None, event_clock: Callable[[], float] | None = None) -> None:
        self.fs, self.layout, self.lease_seconds = fs, layout, lease_seconds
        # Two clocks: `clock` judges leases (a command may fix it to its --now); `event_clock` stamps event ids,
        # which are real publication instants.
        self.clock = clock or time.time
        self.event_clock = event_clock or time.time
        self._newest_ms: dict[str, int] = {}  # per feed, the instant of the newest event id this object issued
        self.control = Control(fs, layout)
        self.evictions = EvictionBatches(fs, layout)
        self.journal = Journal(fs, layout, self.evictions)

    @classmethod
    def of(cls, fs: FileSystem, cluster: Cluster, **options: Any) -> Ledger:
        return cls(fs, LedgerLayout.of(cluster), **options)

    # Instances and attempts

    def instance(self, process: str, t: datetime) -> InstanceRecord | None:
        """The instance's record: its folder's, else its month's roll-up's (read after the folder: a roll-up
        is written before the folders it holds are deleted)."""
        path = self.layout.instance_record(process, t)
        data = self.fs.read_if_exists(path)
        if data is not None:
            return InstanceRecord.parse(data, path)
        return read_rollup(self.fs, self.layout, process, month_of(t)).instance(t)

    def instances(self, process: str, times: Iterable[datetime]) -> dict[datetime, InstanceRecord]:
        """The records of the given instances that have one: one listing of the process's folders (those not
        rolled up), then the roll-ups of the months asked for only."""
        return self._per_instance(process, times, InstanceRecord.parse, lambda month, wanted: read_rollup(
            self.fs, self.layout, process, month).instances(wanted))

    def instance_states(self, process: str, times: Iterable[datetime]) -> dict[datetime, InstanceState]:
        """The states of the given instances that have a record (what `instances` reads without inputs and
        outputs): from a roll-up, its state lines alone."""
        return self._per_instance(process, times, lambda data, path: InstanceState.of(InstanceRecord.parse(
            data, path)), lambda month, wanted: read_rollup_states(self.fs, self.layout, process, month).states(
            wanted))

    def instance_outlines(self, process: str, times: Iterable[datetime]) -> dict[datetime, InstanceOutline]:
        """The outlines (status, attempts, end, duration) of the given instances that have a record: from a
        roll-up, its head's digest alone (no state line parsed)."""
        return self.outline_columns(process, times).by_time()

    def outline_columns(self, process: str, times: Iterable[datetime]) -> Outlines:
        """`instance_outlines` as columns, in time order (what `toolkit metrics` counts a window with)."""
        folders, by_month = self._homes(process, times, lambda data, path: InstanceOutline.of(InstanceState.of(
            InstanceRecord.parse(data, path))))
        return Outlines.joined([Outlines.of(folders), *(read_rollup_digest(
            self.fs, self.layout, process, month_of(wanted[0])).outlines(wanted) for wanted in by_month.values())])

    def _per_instance(self, process: str, times: Iterable[datetime], parse: Callable[[bytes, str], Read],
                      month_reader: Callable[[str, Sequence[datetime]], dict[datetime, Read]]) -> dict[datetime, Read]:
        """What `parse` reads of each instance's folder record, else what `month_reader` reads of its month's
        roll-up (each month read once, for its instances asked for)."""
        found, by_month = self._homes(process, times, parse)
        for wanted in by_month.values():
            found.update(month_reader(month_of(wanted[0]), wanted))
        return found

    def _homes(self, process: str, times: Iterable[datetime], parse: Callable[[bytes, str], Read]) \
            -> tuple[dict[datetime, Read], Mapping[tuple[int, int], tuple[datetime, ...]]]:
        """What `parse` reads of the folder records of those of `times` that have one, and the others by month (the
        roll-up of each is theirs to read)."""
        times = tuple(times)
        folders = self.folder_times(process)
        found = {}
        for t in [t for t in times if t in folders] if folders else ():
            path = self.layout.instance_record(process, t)
            data = self.fs.read_if_exists(path)
            if data is not None:
                found[t] = parse(data, path)
        return found, _by_month(tuple(t for t in times if t not in found) if found else times)

    def recorded_times(self, process: str) -> set[datetime]:
        """The instance times of `process` the ledger has records or folders for (in folders or roll-ups)."""
        times = self.folder_times(process)
        for month in rolled_months(self.fs, self.layout, process):
            times |= read_rollup_states(self.fs, self.layout, process, month).times()
        return times

    def folder_times(self, process: str) -> set[datetime]:
        """The instance times of `process` that have a folder (not rolled up, or run again since)."""
        folder = self.layout.process_folder(process)
        if not self.fs.exists(folder):
            return set()
        times = (parse_instance_key(status.name) for status in self.fs.list(folder) if status.is_dir)
        return {t for t in times if t is not None}

    def write_instance(self, record: InstanceRecord) -> None:
        self.fs.write_atomically(self.layout.instance_record(record.process, record.nominal), to_json(record))

    def attempts(self, process: str, t: datetime) -> list[AttemptRecord]:
        """The instance's attempts: its folder's and its roll-up's, by number (a folder's attempt wins)."""
        folder = self.layout.instance_folder(process, t)
        by_number: dict[int, AttemptRecord] = {}
        if self.fs.exists(folder):
            for status in self.fs.list(folder):
                if status.name.startswith("attempt-") and status.name.endswith(".json"):
                    data = self.fs.read_if_exists(status.path)
                    if data is not None:  # rolled up and deleted since the listing: the roll-up has it
                        record = AttemptRecord.parse(data, status.path)
                        by_number[record.attempt] = record
        rolled = read_rollup(self.fs, self.layout, process, month_of(t)).get(t)
        for record in rolled.attempts if rolled is not None else ():
            by_number.setdefault(record.attempt, record)
        return [by_number[number] for number in sorted(by_number)]

    def write_attempt(self, record: AttemptRecord) -> str:
        path = self.layout.attempt_record(record.process, record_time(record.time), record.attempt)
        self.fs.write_atomically(path, to_json(record))
        return path

    def write_attempt_log(self, process: str, t: datetime, attempt: int, log: CappedLog) -> str:
        """Keep an attempt's stderr beside its record (capped, secrets masked: attempt_logs.py)."""
        path = self.layout.attempt_log(process, t, attempt)
        self.fs.write_atomically(path, log.render())
        return path

    def attempt_log(self, process: str, t: datetime, attempt: int) -> bytes | None:
        """The stderr an attempt kept, or None (not kept: a run killed before its end, a run of an older toolkit,
        or an instance rolled up since: a roll-up keeps the records, not the logs); secrets masked again, as a
        record's error is when read."""
        data = self.fs.read_if_exists(self.layout.attempt_log(process, t, attempt))
        return None if data is None else masked_log(data)

    def request_kill(self, process: str, t: datetime, request: KillRequest) -> None:
        RecordFile(self.fs, self.layout.kill_request(process, t), KillRequest).write(request)

    def kill_request(self, process: str, t: datetime) -> KillRequest | None:
        return RecordFile(self.fs, self.layout.kill_request(process, t), KillRequest).read()

    def clear_kill_request(self, process: str, t: datetime) -> None:
        path = self.layout.kill_request(process, t)
        if self.fs.exists(path):
            self.fs.delete(path, recursive=False)

    # Holds on instances (`toolkit suspend --time`)

    def hold(self, process: str, t: datetime) -> Hold | None:
        return RecordFile(self.fs, self.layout.hold(process, t), Hold).read()

    def set_hold(self, process: str, t: datetime, hold: Hold) -> None:
        RecordFile(self.fs, self.layout.hold(process, t), Hold).write(hold)

    def clear_hold(self, process: str, t: datetime) -> None:
        path = self.layout.hold(process, t)
        if self.fs.exists(path):
            self.fs.delete(path, recursive=False)

    def holds(self, process: str) -> dict[datetime, Hold]:
        """Every held instance of the process, in one listing."""
        folder = self.layout.holds_folder(process)
        if not self.fs.exists(folder):
            return {}
        found = {}
        for status in self.fs.list(folder):
            t = parse_instance_key(status.name)
            if t is not None and not status.is_dir:
                found[t] = parse_record(Hold, self.fs.read(status.path), status.path)
        return found

    # Late-data checks

    def late_checks(self, process: str, t: datetime) -> list[LateCheck]:
        """The instance's late checks: its folder's (a superset of its roll-up's), else its roll-up's."""
        path = self.layout.late_checks(process, t)
        data = self.fs.read_if_exists(path)
        if data is not None:
            return parse_late_checks(data, path)
        rolled = read_rollup(self.fs, self.layout, process, month_of(t)).get(t)
        return [] if rolled is None else list(rolled.late_checks)

    def add_late_check(self, process: str, t: datetime, check: LateCheck) -> None:
        checks = self.late_checks(process, t)
        self.fs.write_atomically(self.layout.late_checks(process, t), late_checks_json([*checks, check]))

    # Dataset events

    def events(self, feed: str, t: datetime) -> list[DatasetEvent]:
        """The events of one feed instance on this cluster (its event files and the batches of evictions that
        hold it), oldest publication first."""
        folder = self.layout.event_folder(feed, t)
        found = [] if not self.fs.exists(folder) else [
            DatasetEvent.parse(self.fs.read(status.path), status.path)
            for status in self.fs.list(folder) if _is_event_file(status.name)]
        found += [event for batch in self.evictions.covering(feed, t) for event in batch.events_at(t)]
        return sorted(found, key=_EVENT_ORDER)

    def events_of(self, feed: str, times: Iterable[datetime]) -> dict[datetime, list[DatasetEvent]]:
        """`events` of many instances of one feed, by instance; an instance without events is no key. One listing of
        the feed's event folders and one of each instance folder there, and each batch of evictions that can hold
        one read once: a year of hourly instances asked one at a time would list the batches 8,760 times."""
        wanted = {instance_key(t): t for t in times}
        if not wanted:
            return {}
        folder = self.layout.events_folder(feed)
        folders = {} if not self.fs.exists(folder) else {
            status.path: wanted[status.name] for status in self.fs.list(folder)
            if status.is_dir and status.name in wanted}
        found: dict[datetime, list[DatasetEvent]] = {}
        for path, t in folders.items():
            found[t] = [DatasetEvent.parse(self.fs.read(status.path), status.path)
                        for status in self.fs.list(path) if _is_event_file(status.name)]
        by_stamp = {format_timestamp(t): t for t in wanted.values()}
        for batch in self.evictions.overlapping(feed, min(wanted.values()), max(wanted.values())):
            for instance in batch.instances:
                if instance.time in by_stamp:
                    found.setdefault(by_stamp[instance.time], []).append(batch.event(instance))
        return {t: sorted(events, key=_EVENT_ORDER) for t, events in found.items() if events}

    def feed_event_times(self, feed: str) -> list[datetime]:
        """The instance times of `feed` that have events on this cluster, oldest first."""
        folder = self.layout.events_folder(feed)
        times = set() if not self.fs.exists(folder) else {
            t for t in (parse_instance_key(status.name) for status in self.fs.list(folder) if status.is_dir)
            if t is not None}
        times.update(t for batch in self.evictions.all(feed) for t in batch.times())
        return sorted(times)

    def event_feeds(self) -> list[str]:
        """The feeds that have events on this cluster."""
        folder = self.layout.events_folder()
        feeds = set() if not self.fs.exists(folder) else {s.name for s in self.fs.list(folder) if s.is_dir}
        return sorted(feeds.union(self.evictions.feeds()))

    def record_publication(self, facts: PublicationFacts, *, unless_recorded: bool = False,
                           guard: Callable[[], None] = lambda: None) -> DatasetEvent | None:
        """Record that the instance `facts.time` of `facts.feed` became visible here: `replaced` when it was visible
        already (its last event is not an eviction), else `published`. Every producer calls this right after
        publishing. `unless_recorded` (a run that found the instance already in place): nothing is written when
        the last event already records this very content (a publication with the same fingerprint), which is how a
        run killed between its publication and its event gets the event written by the next run. `guard` is called
        right before the event is written, after the last one was read (a lease's check: a run that lost it writes
        nothing)."""
        last = self._last_event(facts.feed, facts.time)
        visible = last is not None and last.kind != EVICTED
        if unless_recorded and visible and last is not None and last.fingerprint == facts.fingerprint:
            self.journal.ensure(last)
            return None
        return self._record(facts, REPLACED if visible else PUBLISHED, last, guard)

    def record_evictions(self, feed: str, cluster: str, evicted: Iterable[tuple[datetime, str]], *, producer: str,
                         run_id: str, definition: Provenance | None = None) -> EvictionBatch | None:
        """Record that the instances `evicted` (time, and where the data went: its location, or its archive) of
        `feed` are gone from here: one batch file and one journal entry however many there are (evictions.py),
        read as one `evicted` event per instance. None when there are none. Their ids share one instant, taken
        without reading each instance's last event (a retention run evicts tens of thousands): the clock's, moved
        1 ms past the newest id this object issued for the feed when that is not behind it, so an eviction
        recorded in the millisecond of a publication still sorts after it."""
        listed = list(evicted)
        if not listed:
            return None
        batch = EvictionBatch.of(feed, cluster, listed, producer=producer, run_id=run_id,
                                 published_ms=self._stamp(feed, self._newest_ms.get(feed)),
                                 definition=definition)
        self.journal.require_writable(JournalEntry.of_batch(batch))
        self.evictions.write(batch)
        self.journal.write_batch(batch)
        return batch

    def plan_evictions(self, feed: str, run_id: str, planned: list[tuple[datetime, str]]) -> None:
        """Written before retention evicts (instance times and the location each event will name), removed once
        their events are written: a run killed in between leaves it for the next run to finish."""
        self.fs.write_atomically(self.layout.pending_evictions(feed),
                                 PlannedEvictions.of(feed, run_id, planned).to_bytes())

    def pending_evictions(self, feed: str) -> tuple[str, list[tuple[datetime, str]]] | None:
        """The run id and evictions of a plan a killed retention run left, or None."""
        plan = RecordFile(self.fs, self.layout.pending_evictions(feed), PlannedEvictions).read()
        return None if plan is None else (plan.run_id, plan.planned)

    def clear_evictions(self, feed: str) -> None:
        self.fs.delete(self.layout.pending_evictions(feed), recursive=False)

    def _last_event(self, feed: str, t: datetime) -> DatasetEvent | None:
        events = self.events(feed, t)
        return events[-1] if events else None

    def _record(self, facts: PublicationFacts, kind: str, last: DatasetEvent | None,
                guard: Callable[[], None] = lambda: None) -> DatasetEvent:
        # Published instants come from the real clock; an id never sorts before the instance's last one, so
        # the kind decided from "the last event" stays right when clocks of two hosts disagree.
        if last is not None:
            self.journal.ensure(last)  # a producer killed before the journal entry of the last one
        published_ms = self._stamp(facts.feed, None if last is None else event_id_ms(last.event_id))
        event = self._event(facts, kind, published_ms)
        self.journal.require_writable(JournalEntry.of(event))
        guard()
        self.fs.write_atomically(self.layout.event_record(facts.feed, facts.time, event.event_id), event_json(event))
        self.journal.write(event)
        return event

    def _stamp(self, feed: str, after_ms: int | None) -> int:
        """The instant of a new event id of `feed`: the clock's, or 1 ms past `after_ms` when the clock is not
        past it (never more: ids that ran further ahead of the clock would pass a reader's "now")."""
        ms = int(self.event_clock() * 1000)
        if after_ms is not None:
            ms = max(ms, after_ms + 1)
        self._newest_ms[feed] = max(ms, self._newest_ms.get(feed, ms))
        return ms

    @staticmethod
    def _event(facts: PublicationFacts, kind: str, published_ms: int) -> DatasetEvent:
        stamp = format_timestamp(facts.time)
        return DatasetEvent(
            feed=facts.feed, cluster=facts.cluster, time=stamp, run_id=facts.run_id, producer=facts.producer,
            location=facts.location, published=wall_clock_stamp(published_ms / 1000), kind=kind,
            fingerprint=facts.fingerprint, definition=facts.definition,
            event_id=event_id(published_ms, facts.run_id, facts.feed, stamp, kind))

    # Locks

    def _lock(self, folder: str, name: str) -> LeaseLock:
        return LeaseLock(self.fs, folder, name, self.lease_seconds, clock=self.clock)

    def instance_lock(self, process: str, t: datetime) -> LeaseLock:
        return self._lock(self.layout.instance_folder(process, t), "lock")

    def replication_lock(self, feed: str, t: datetime) -> LeaseLock:
        """Held while an instance of `feed` is replicated into this cluster (whatever its sources)."""
        return self._lock(self.layout.action_lock_folder("replication", feed, instance_key(t)), "lock")

    def publication_lock(self, feed: str, t: datetime) -> LeaseLock:
        """Held while an outside producer's instance of `feed` is checked and its event written (publish.py): two
        calls at once would both read "no event yet" and both record one."""
        return self._lock(self.layout.action_lock_folder("publish", feed, instance_key(t)), "lock")

    def retention_lock(self, feed: str) -> LeaseLock:
        """Held while the retention of `feed` evicts on this cluster."""
        return self._lock(self.layout.action_lock_folder("retention", feed), "lock")

    def ingest_lock(self, feed: str) -> LeaseLock:
        """Held while records are ingested into `feed` on this cluster (toolkit/actions/ingest/)."""
        return self._lock(self.layout.action_lock_folder("ingest", feed), "lock")

    def hive_export_lock(self, feed: str, t: datetime) -> LeaseLock:
        """Held while the partition of an instance of the table feed `feed` is exported (hive_export.py)."""
        return self._lock(self.layout.action_lock_folder("hive-export", feed, instance_key(t)), "lock")

    def import_lock(self, database: str, table: str, partition: str) -> LeaseLock:
        """Held while a partition of a table of this cluster's catalog is imported (hive_import.py, replication)."""
        folder = self.layout.action_lock_folder("hive-import", f"{database}.{table}", partition_key(partition))
        return self._lock(folder, "lock")

    def database_import_lock(self, feed: str, t: datetime | None) -> LeaseLock:
        """Held while `feed` is imported from a database into this cluster: an instance of a full import (`t`), or
        every instance of an incremental one (None), whose reads follow each other from one high-water mark."""
        names = (feed,) if t is None else (feed, instance_key(t))
        return self._lock(self.layout.action_lock_folder("db-import", *names), "lock")

    def database_export_lock(self, feed: str, t: datetime) -> LeaseLock:
        """Held while an instance of `feed` on this cluster is exported into a database."""
        return self._lock(self.layout.action_lock_folder("db-export", feed, instance_key(t)), "lock")

    def lineage_resend_lock(self) -> LeaseLock:
        """Held while `toolkit lineage resend` sends this cluster's kept events
        (toolkit/services/openlineage/resend.py)."""
        return self._lock(self.layout.action_lock_folder("lineage-resend"), "lock")

    def backfill_lock(self, kind: str, name: str) -> LeaseLock:
        """One `toolkit backfill` at a time of an entity (`kind` process or replication) on this cluster."""
        return self._lock(self.layout.action_lock_folder("backfill", kind, name), "lock")

    def sweep_lock(self) -> LeaseLock:
        """Held while the data-trigger sweep of this cluster runs (toolkit/orchestration/triggers/sweep.py)."""
        return self._lock(self.layout.action_lock_folder("trigger"), "lock")

    def take_slot(self, process: str, parallel: int, run_id: str,
                  details: LeaseDetails) -> tuple[LeaseLock | None, list[Lease]]:
        """One of the process's `parallel` running slots, or None and the live leases that fill them."""
        folder = self.layout.slots_folder(process)
        holders: list[Lease] = []
        for index in range(parallel):
            slot = self._lock(folder, f"slot-{index}")
            outcome: Acquired = slot.try_acquire(run_id, details)
            if outcome.taken:
                return slot, holders
            if outcome.holder is not None:
                holders.append(outcome.holder)
        return None, holders

    def running(self, process: str) -> list[Lease]:
        """The live leases of the process's slots: its running instances (`details` name them)."""
        folder = self.layout.slots_folder(process)
        if not self.fs.exists(folder):
            return []
        listing = self.fs.list(folder)
        names = sorted({status.name.rsplit(".", 1)[0] for status in listing if status.name.startswith("slot-")})
        now = self.clock()
        leases = [self._lock(folder, name).current(listing) for name in names]
        return [lease for lease in leases if lease is not None and lease.live(now)]

