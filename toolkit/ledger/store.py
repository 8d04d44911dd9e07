"""Reading and writing one cluster's ledger: process instance and attempt records, late checks, dataset
events, the instance locks and the `parallel` slots. The records and the layout are defined beside it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from toolkit.el.timestamps import instance_key, parse_instance_key
from toolkit.entities.model import Cluster
from toolkit.ledger.control import Control
from toolkit.ledger.layout import LedgerLayout, partition_key
from toolkit.ledger.locks import Acquired, Lease, LeaseLock
from toolkit.ledger.records import (
    AttemptRecord,
    DatasetEvent,
    InstanceRecord,
    LateCheck,
    late_checks_json,
    parse_late_checks,
    record_time,
    to_json,
)
from toolkit.storage.filesystem import FileSystem, StorageError

# A killed run's lock is taken over this long after its last renewal (renewed every third of it).
DEFAULT_LEASE_SECONDS = 60.0


class Ledger:
    def __init__(self, fs: FileSystem, layout: LedgerLayout, lease_seconds: float = DEFAULT_LEASE_SECONDS,
                 clock: Callable[[], float] | None = None) -> None:
        self.fs, self.layout, self.lease_seconds = fs, layout, lease_seconds
        self.clock = clock or time.time
        self.control = Control(fs, layout)

    @classmethod
    def of(cls, fs: FileSystem, cluster: Cluster, **options: Any) -> Ledger:
        return cls(fs, LedgerLayout.of(cluster), **options)

    def _read(self, path: str) -> bytes | None:
        try:
            return self.fs.read(path)
        except StorageError:
            if self.fs.exists(path):
                raise
            return None

    # Instances and attempts

    def instance(self, process: str, t: datetime) -> InstanceRecord | None:
        path = self.layout.instance_record(process, t)
        data = self._read(path)
        return None if data is None else InstanceRecord.parse(data, path)

    def instances(self, process: str, times: Iterable[datetime]) -> dict[datetime, InstanceRecord]:
        """The records of the given instances that have one; reads only the instance folders that exist."""
        existing = self.recorded_times(process)
        found = {}
        for t in times:
            if t in existing:
                record = self.instance(process, t)
                if record is not None:
                    found[t] = record
        return found

    def recorded_times(self, process: str) -> set[datetime]:
        """The instance times of `process` the ledger has folders for."""
        folder = self.layout.process_folder(process)
        if not self.fs.exists(folder):
            return set()
        times = (parse_instance_key(status.name) for status in self.fs.list(folder) if status.is_dir)
        return {t for t in times if t is not None}

    def write_instance(self, record: InstanceRecord) -> None:
        self.fs.write_atomically(self.layout.instance_record(record.process, record.nominal), to_json(record))

    def attempts(self, process: str, t: datetime) -> list[AttemptRecord]:
        folder = self.layout.instance_folder(process, t)
        if not self.fs.exists(folder):
            return []
        records = []
        for status in self.fs.list(folder):
            if status.name.startswith("attempt-") and status.name.endswith(".json"):
                records.append(AttemptRecord.parse(self.fs.read(status.path), status.path))
        return sorted(records, key=lambda record: record.attempt)

    def write_attempt(self, record: AttemptRecord) -> str:
        path = self.layout.attempt_record(record.process, record_time(record.time), record.attempt)
        self.fs.write_atomically(path, to_json(record))
        return path

    # Late-data checks

    def late_checks(self, process: str, t: datetime) -> list[LateCheck]:
        path = self.layout.late_checks(process, t)
        data = self._read(path)
        return [] if data is None else parse_late_checks(data, path)

    def add_late_check(self, process: str, t: datetime, check: LateCheck) -> None:
        checks = self.late_checks(process, t)
        self.fs.write_atomically(self.layout.late_checks(process, t), late_checks_json([*checks, check]))

    # Dataset events

    def write_event(self, event: DatasetEvent) -> str:
        path = self.layout.event_record(event.feed, record_time(event.time), event.run_id)
        self.fs.write_atomically(path, to_json(event))
        return path

    def events(self, feed: str, t: datetime) -> list[DatasetEvent]:
        folder = self.layout.event_folder(feed, t)
        if not self.fs.exists(folder):
            return []
        return [DatasetEvent.parse(self.fs.read(status.path), status.path)
                for status in self.fs.list(folder) if status.name.endswith(".json")]

    # Locks

    def _lock(self, folder: str, name: str) -> LeaseLock:
        return LeaseLock(self.fs, folder, name, self.lease_seconds, clock=self.clock)

    def instance_lock(self, process: str, t: datetime) -> LeaseLock:
        return self._lock(self.layout.instance_folder(process, t), "lock")

    def replication_lock(self, feed: str, t: datetime) -> LeaseLock:
        """Held while an instance of `feed` is replicated into this cluster (whatever its sources)."""
        return self._lock(self.layout.action_lock_folder("replication", feed, instance_key(t)), "lock")

    def retention_lock(self, feed: str) -> LeaseLock:
        """Held while the retention of `feed` evicts on this cluster."""
        return self._lock(self.layout.action_lock_folder("retention", feed), "lock")

    def import_lock(self, database: str, table: str, partition: str) -> LeaseLock:
        """Held while a partition of a table of this cluster's catalog is imported (hive_import.py, replication)."""
        folder = self.layout.action_lock_folder("hive-import", f"{database}.{table}", partition_key(partition))
        return self._lock(folder, "lock")

    def take_slot(self, process: str, parallel: int, run_id: str,
                  details: dict[str, Any]) -> tuple[LeaseLock | None, list[Lease]]:
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

