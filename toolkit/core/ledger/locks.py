"""Lease locks on a plain file system: exactly one holder, and a killed holder's lock taken over once its
lease has expired.

A lock `name` in a folder is a series of generation files `name.0`, `name.1`, ...; the highest one is the
lock. Each holds a lease: who holds it, until when (wall clock, renewed while the holder runs), and whether it
was released. Taking the lock is creating the next generation exclusively (`create_exclusive`, which fails
when the file exists), so of two callers exactly one wins, whether the lock was free, released, or left by a
killed run whose lease expired; a caller that finds a later generation than its own right after creating it
(it listed the folder too long ago) deletes its own and backs off. Older generations are deleted once they are
ten leases old, so a stalled caller cannot create one again unnoticed; a caller stalled longer than that
between listing and creating is the one case this scheme does not cover. A holder that finds a higher
generation than its own when renewing has lost the lock (it was too slow to renew) and must not publish.

An empty generation file is a creator killed between create and write (or one writing right now): it counts
as held until a lease's length after its modification time.

A holder also counts itself lost without looking at the files: when its last successful renewal is older
than its lease minus a share (SKEW_SHARE, a quarter) of it, another run may take the lock by now, so
`ensure_held` refuses, and every publication (a rename into place, a flag, a partition switch) calls it right
before it. Renewal errors (a storage outage) are therefore harmless only while they last less than three
quarters of a lease. Expiries are wall-clock instants compared on different hosts: the leases tolerate clocks
that differ by less than that quarter of a lease (15 s of the default 60 s lease) minus the time a
publication step takes after its check; hosts kept by NTP are within milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated

from toolkit.core.ledger.kill_requests import RunKilledError
from toolkit.core.ledger.records import CorruptRecordError, parse_record, record_document, wall_clock_stamp
from toolkit.core.storage.filesystem import FileStatus, FileSystem, StorageError
from toolkit.errors import ToolkitError

HELD, RELEASED = "HELD", "RELEASED"
# How long (in leases) a superseded generation file is kept; see LeaseLock._forget_old.
RETAIN_LEASES = 10
# The share of a lease a holder gives up early (see the module's docstring): the clock skew it tolerates.
SKEW_SHARE = 0.25

_LAST_SECOND = 253402300800.0  # 10000-01-01T00:00Z in seconds since the epoch: a lease expires before it


class LockLostError(ToolkitError):
    """Another run may own the lock now (exit 1): this run stops at once and publishes nothing."""


@dataclass(frozen=True)
class LeaseDetails:
    """What a lease is for, as its holder says (each field left out of the file when None, so that an empty one is
    `{}`): the instance `time` (a process instance's, a replication's, a retention's, an export's), the `attempt`
    (written by older toolkits), a batch consumer's `process`, its plan `seq` and `since` when claimed, a batch's
    `batch`, a Hive import's `partition`, or the `action` of a lock of a cluster's (`rollup`, `trigger`,
    `airflow-events`). Read by `toolkit running`, `toolkit queue` and the holder named to a refused caller. `time`
    and `since` are texts, as before they were typed: they are shown, never computed with. Damaged details read as
    empty ones: what a lease is for never makes the lease itself unreadable (a lock nobody could take again)."""

    UNKNOWN_WHEN_DAMAGED = True

    time: str | None = None  # yyyy-MM-ddTHH:mmZ
    attempt: int | None = None
    process: str | None = None
    seq: int | None = None
    since: str | None = None  # a stamp, yyyy-MM-ddTHH:mm:ssZ
    batch: int | None = None
    partition: str | None = None
    action: str | None = None


@dataclass(frozen=True)
class Lease:
    """What a lock generation says: its holder (run id, host and pid), the real instant it expires
    (seconds since the epoch), and what it is for (`details`: the instance, the batch ...) for `toolkit running`."""

    run_id: str
    holder: str
    expires: float
    state: Annotated[str, (HELD, RELEASED)] = HELD
    details: LeaseDetails = field(default_factory=LeaseDetails)

    @classmethod
    def parse(cls, data: bytes, path: str) -> Lease:
        """A generation file's lease, read by the record codec; CorruptRecordError naming the path for one that is
        no lease, an expiry no clock reaches included (NaN, before 1970, past year 9999)."""
        try:
            lease: Lease = parse_record(cls, data, path)
        except CorruptRecordError as err:
            raise CorruptRecordError(path, f"not a lock lease: {err.why}") from None
        if not 0 <= lease.expires < _LAST_SECOND:
            raise CorruptRecordError(path, f"not a lock lease: its expiry {lease.expires!r} is no instant from 1970 "
                                           "to 9999")
        return lease

    def to_json(self) -> bytes:
        """The lease as its generation file holds it, with its expiry spelled for people (`expires_at`)."""
        document = {**record_document(self), "expires_at": self.expires_text}
        return (json.dumps(document, sort_keys=True) + "\n").encode()

    def live(self, now: float) -> bool:
        return self.state == HELD and self.expires > now

    @property
    def expires_text(self) -> str:
        return wall_clock_stamp(self.expires)


@dataclass(frozen=True)
class Acquired:
    """The outcome of `try_acquire`: `taken` or not; `holder` is the live lease that refused us; `previous` is the
    expired lease of a killed run we took over (its attempt is then recorded as KILLED)."""

    taken: bool
    holder: Lease | None = None
    previous: Lease | None = None


def holder_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class LeaseLock:
    """One lock: generation files `<folder>/<name>.<n>`. `clock` gives real seconds since the epoch."""

    def __init__(self, fs: FileSystem, folder: str, name: str, lease_seconds: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.fs, self.folder, self.name = fs, folder.rstrip("/"), name
        self.lease_seconds, self.clock = lease_seconds, clock
        self.generation: int | None = None  # ours, while we hold it
        self.lease: Lease | None = None

    def _path(self, generation: int) -> str:
        return f"{self.folder}/{self.name}.{generation}"

    def generations(self, listing: list[FileStatus] | None = None) -> list[tuple[int, FileStatus]]:
        """Our generation files, oldest first; `listing` is the folder's listing when the caller has it."""
        if listing is None:
            listing = self.fs.list(self.folder) if self.fs.exists(self.folder) else []
        found = []
        prefix = self.name + "."
        for status in listing:
            suffix = status.name[len(prefix):] if status.name.startswith(prefix) else ""
            if suffix.isascii() and suffix.isdigit() and not status.is_dir:  # `lock.²` is no generation
                found.append((int(suffix), status))
        return sorted(found, key=lambda item: item[0])

    def read(self, generation: int, status: FileStatus) -> Lease | None:
        """The lease in one generation file; None when the file is gone. An empty file (its creator killed before
        writing, or writing now) holds for a lease's length after its modification time."""
        path = self._path(generation)
        data = self.fs.read_if_exists(path)
        if data is None:
            return None
        if not data:
            return Lease(run_id="unknown", holder="a run killed while taking the lock",
                         expires=status.modification_time / 1000 + self.lease_seconds)
        return Lease.parse(data, path)

    def current(self, listing: list[FileStatus] | None = None) -> Lease | None:
        """The lock's lease (its highest generation), or None when it was never taken."""
        for generation, status in reversed(self.generations(listing)):
            lease = self.read(generation, status)
            if lease is not None:
                return lease
        return None

    def try_acquire(self, run_id: str, details: LeaseDetails | None = None) -> Acquired:
        found = self.generations()
        now = self.clock()
        previous: Lease | None = None
        following = 0
        if found:
            generation, status = found[-1]
            lease = self.read(generation, status)
            if lease is None:  # gone since the listing: another caller is taking the lock over right now
                return Acquired(False, holder=self.current())
            if lease.live(now):
                return Acquired(False, holder=lease)
            previous = lease if lease.state == HELD else None
            following = generation + 1
        lease = Lease(run_id=run_id, holder=holder_name(), expires=now + self.lease_seconds,
                      details=details or LeaseDetails())
        if not self.fs.create_exclusive(self._path(following), lease.to_json()):
            self._refuse_a_folder_at(following)
            return Acquired(False, holder=self.current())  # another caller won this generation
        if any(g > following for g, _ in self.generations()):
            # We listed before a later generation was taken: it is the lock, ours is stale.
            self.fs.delete(self._path(following), recursive=False)
            return Acquired(False, holder=self.current())
        self.generation, self.lease = following, lease
        self._forget_old(found)
        return Acquired(True, previous=previous)

    def _refuse_a_folder_at(self, generation: int) -> None:
        """CorruptRecordError (exit 1) when a folder stands where the generation file belongs: no caller could ever
        take the lock, and each would be told another run holds it."""
        found = self.fs.status(self._path(generation))
        if found is not None and found.is_dir:
            raise CorruptRecordError(self._path(generation), "a folder stands where the lock's generation file "
                                                             "belongs: remove it once no run of this work is alive")

    def _forget_old(self, found: list[tuple[int, FileStatus]]) -> None:
        """Older generations are kept for RETAIN_LEASES leases after their last write, so that a caller stalled
        between its listing and its create finds its generation taken instead of creating it again. Measured
        on the real clock: the files' modification times are real instants."""
        horizon = time.time() - RETAIN_LEASES * self.lease_seconds
        for generation, status in found:
            if status.modification_time / 1000 < horizon:
                self.fs.delete(self._path(generation), recursive=False)

    def still_ours(self) -> bool:
        """No later generation exists: nobody took the lock over while we held it."""
        return self.generation is not None and all(g <= self.generation for g, _ in self.generations())

    def ensure_held(self) -> None:
        """Raise LockLostError unless we hold the lock: taken and not released, renewed recently enough that
        no other host can find it expired (its lease minus SKEW_SHARE of it), and no later generation."""
        path = self._path(self.generation) if self.generation is not None else f"{self.folder}/{self.name}"
        if self.generation is None or self.lease is None:
            raise LockLostError(f"The lock {path} is not held by this run: it publishes nothing.")
        left = self.lease.expires - self.clock()
        if left <= SKEW_SHARE * self.lease_seconds:
            raise LockLostError(
                f"The lock {path} of run {self.lease.run_id} was not renewed in time (its lease ends "
                f"{self.lease.expires_text}; is the storage reachable?): another run may take it over, so this "
                "run stops and publishes nothing.")
        if not self.still_ours():
            raise LockLostError(f"The lock {path} of run {self.lease.run_id} was taken over by another run: this "
                                "run stops and publishes nothing; the other run owns the work.")

    def renew(self) -> bool:
        """Push the lease's expiry a lease's length ahead; False (and nothing written) when we lost the lock."""
        if self.generation is None or self.lease is None or not self.still_ours():
            return False
        renewed = replace(self.lease, expires=self.clock() + self.lease_seconds)
        self.fs.write_atomically(self._path(self.generation), renewed.to_json())
        self.lease = renewed  # only once written: ensure_held trusts the expiry other runs can read
        return True

    def release(self) -> None:
        """Mark our generation released (the next caller takes the following one); a lost lock is left alone."""
        if self.generation is not None and self.lease is not None and self.still_ours():
            self.fs.write_atomically(self._path(self.generation), replace(self.lease, state=RELEASED).to_json())
        self.generation, self.lease = None, None


class LeaseKeeper:
    """Renews locks in a background thread every third of their lease while a run works, so that only a killed
    run's lease expires. `lost` is set when a renewal finds the lock taken over; a renewal that fails (the
    storage is out) is tried again at the next interval, and `ensure_held` counts a lease not renewed in time
    as lost: call it right before every publication."""

    def __init__(self, locks: Sequence[LeaseLock], interval: float,
                 stop_when: Callable[[], str | None] | None = None, on_stop: Callable[[], None] | None = None) \
            -> None:
        self.locks, self.interval = list(locks), interval
        self.lost = threading.Event()
        # `stop_when` (read at each renewal and in ensure_held) says why the run must end, or None: once it says so,
        # `killed` is set, ensure_held raises, and `on_stop` (which cancels the run's work) is called then and at
        # every renewal until the keeper stops: work the run starts after the kill (a workflow's next Spark job) is
        # cancelled too.
        self.stop_when, self.on_stop = stop_when, on_stop
        self.killed = threading.Event()
        self.killed_reason = ""
        self._kill_guard = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew_until_stopped, name="lease-keeper", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def ensure_held(self) -> None:
        """Raise LockLostError unless every lock is still ours (see LeaseLock.ensure_held), RunKilledError when the
        run was asked to end: a publication's guard."""
        for lock in self.locks:
            lock.ensure_held()
        self.check_kill()
        if self.killed.is_set():
            raise RunKilledError(f"The run was {self.killed_reason}; it publishes nothing.")
        if self.lost.is_set():  # a renewal found a later generation; ensure_held looked before it was taken
            names = ", ".join(f"{lock.folder}/{lock.name}" for lock in self.locks)
            raise LockLostError(f"A lock of this run ({names}) was taken over by another run: this run stops and "
                                "publishes nothing.")

    def check_kill(self) -> None:
        """Read `stop_when` (unless already killed); once a reason is found the run is killed: call `on_stop`."""
        if self.stop_when is None:
            return
        if not self.killed.is_set():
            try:
                reason = self.stop_when()
            except StorageError:
                return  # read again at the next renewal
            if reason is None:
                return
            with self._kill_guard:
                if not self.killed.is_set():
                    self.killed_reason = reason
                    self.killed.set()
        if self.on_stop is not None:
            # Cancelling is best effort: the renewals must go on, and the run stops before it publishes anyway.
            with contextlib.suppress(Exception):
                self.on_stop()

    def _renew_until_stopped(self) -> None:
        while not self._stop.wait(self.interval):
            self.check_kill()
            for lock in self.locks:
                try:
                    if not lock.renew():
                        self.lost.set()
                except StorageError:
                    pass  # the next renewal tries again; ensure_held refuses once the lease runs short
