"""Run-level leases of the actions: a process instance's run, a replication of an instance into a cluster, the
retention of a feed on a cluster, the import of a partition. The lease lives in the ledger
of the cluster whose data is written, so every caller of the same work meets it there. The second caller is
refused (exit 5) with the holder named; one that comes after the first finished finds the work done; a
killed holder's lease is taken over once it expired (LeaseLock). While held, a LeaseKeeper renews it, and
`check` (a `Callable[[], None]` guard) stops a run that lost it before it publishes."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from toolkit.core.ledger.locks import Lease, LeaseDetails, LeaseKeeper, LeaseLock, LockLostError
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import BlockedError

# A lease file is created empty, then written: a caller that reads it in between waits this long for the name.
NAMING_SECONDS, NAMING_POLL = 1.0, 0.05
UNNAMED = "unknown"  # the run id LeaseLock.read gives a lease file that is still empty


def describe_holder(lease: Lease | None) -> str:
    """`run <id> on <host:pid> (its lease ends <instant>)`, as a BlockedError names the holder."""
    if lease is None:
        return "another run"
    if lease.run_id == UNNAMED:  # its creator was killed before it wrote the lease
        return f"{lease.holder} (its lease ends {lease.expires_text})"
    return f"run {lease.run_id} on {lease.holder} (its lease ends {lease.expires_text})"


def _named(lock: LeaseLock, holder: Lease | None) -> Lease | None:
    """The holder with its name: a lease file read between its creation and its first write has none yet (its
    writer is a moment away from it, or was killed there: then the placeholder stays)."""
    deadline = time.monotonic() + NAMING_SECONDS
    while holder is not None and holder.run_id == UNNAMED and time.monotonic() < deadline:
        time.sleep(NAMING_POLL)
        holder = lock.current() or holder
    return holder


@dataclass(frozen=True)
class HeldLease:
    """A lease this run holds for `what`; `previous` is the expired lease of a killed run it took over."""

    what: str
    keeper: LeaseKeeper
    previous: Lease | None

    def check(self) -> None:
        """The guard before each publication: LockLostError (exit 1) when the lease was taken over or not
        renewed in time (LeaseKeeper.ensure_held)."""
        try:
            self.keeper.ensure_held()
        except LockLostError as lost:
            raise LockLostError(f"The lease of the {self.what} is no longer this run's: {lost}") from None


@contextmanager
def holding(lock: LeaseLock, run_id: str, what: str, details: LeaseDetails | None = None, *,
            stop_when: Callable[[], str | None] | None = None,
            on_stop: Callable[[], None] | None = None) -> Iterator[HeldLease]:
    """Hold `lock` for the body, renewed every third of its lease, released at the end (a lost one, taken over or
    not renewed in time, is left as it is); BlockedError naming the holder when a live run has it. `stop_when` and
    `on_stop`: a run that can be asked to end (`toolkit kill`), as LeaseKeeper takes them."""
    taken = lock.try_acquire(run_id, details)
    if not taken.taken:
        raise BlockedError(f"The {what} is being run by {describe_holder(_named(lock, taken.holder))}: call again "
                           "later.")
    lost = False
    try:
        with LeaseKeeper([lock], lock.lease_seconds / 3, stop_when=stop_when, on_stop=on_stop) as keeper:
            held = HeldLease(what, keeper, taken.previous)
            try:
                yield held
            finally:
                lost = keeper.lost.is_set()
    except LockLostError:
        lost = _lost(lock)  # this lease's loss, or an inner lock's (a roll-up's instance lock): ours is released
        raise
    finally:
        if not lost:
            lock.release()


def _lost(lock: LeaseLock) -> bool:
    """Whether `lock` is no longer this run's to release: taken over, or not renewed in time (the storage did not
    answer). Then nothing more is written, not even the release, so that the next caller takes the lease over once it
    expired and learns a run died there."""
    try:
        lock.ensure_held()
    except (LockLostError, StorageError):
        return True
    return False
