"""One backfill at a time of an entity: a lease lock per step in the ledger of the step's cluster
(`locks/backfill/<kind>/<name>`), taken for all of them before anything starts and renewed while the backfill
runs. A second backfill of any of them is told which one holds it and starts nothing; one killed with -9 keeps them
until their lease ends, then the next call takes them over."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from toolkit.core.ledger.locks import LeaseDetails, LeaseKeeper, LeaseLock, LockLostError
from toolkit.core.ledger.run_locks import describe_holder
from toolkit.errors import BlockedError
from toolkit.orchestration.backfill.standing import Ledgers
from toolkit.orchestration.backfill.steps import Step, step_cluster


@contextmanager
def backfill_locks(steps: tuple[Step, ...], ledgers: Ledgers, run_id: str) -> Iterator[Callable[[], None]]:
    """Hold every step's lock (BlockedError, exit 5, naming the holder of the first that is taken: the others
    are released); yields the guard that raises LockLostError once one is lost."""
    taken: list[LeaseLock] = []
    lost = False
    try:
        for step in sorted(steps, key=lambda s: (step_cluster(s), s.KIND, s.name)):
            ledger = ledgers.of(step_cluster(step))
            lock = ledger.backfill_lock(step.KIND, step.name)
            acquired = lock.try_acquire(run_id, LeaseDetails(action="backfill"))
            if not acquired.taken:
                raise BlockedError(f"The {step.label} is being backfilled by {describe_holder(acquired.holder)}: "
                                   "nothing was started; call again once it is done (it resumes where that one "
                                   "stopped).")
            taken.append(lock)
        interval = min(ledger.lease_seconds for ledger in ledgers.opened.values()) / 3
        with LeaseKeeper(taken, interval) as keeper:
            yield keeper.ensure_held
    except LockLostError:
        lost = True  # another backfill holds them now: not even released
        raise
    finally:
        if not lost:
            for lock in taken:
                lock.release()
