"""Rolling up a process's closed instances of a month into its roll-up file (rollup_records.py says what readers see).

One roll-up of a process at a time: it holds the process's roll-up lease (`rollups/lock.<n>`); a second one is
refused (exit 5) with the holder named. Each instance is rolled up only while the roll-up holds its instance lock,
the very lock a run of it takes, so a run and a roll-up of one instance never overlap: a rerun that comes first
keeps its folder (it is not closed), one that comes after finds the instance in the roll-up and writes a folder
again, which wins. Per chunk of instances: take their locks, read their folders, write the month's roll-up (the
old one and these, atomically), then delete their folders, each right after checking its lock is still held. A
roll-up killed at any moment leaves each instance in its folder, in the roll-up, or in both with the same
content; the next roll-up takes the killed one's expired leases over and finishes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.ledger.locks import HELD, LeaseDetails, LeaseKeeper, LeaseLock, LockLostError
from toolkit.core.ledger.rollup_records import RolledUp, month_of, read_rollup
from toolkit.core.ledger.run_locks import holding
from toolkit.core.ledger.store import Ledger
from toolkit.statuses import Status

# The statuses of a closed instance: no run of it is going on or due to go on by itself.
CLOSED = (Status.SUCCEEDED, Status.FAILED, Status.TIMEDOUT, Status.SKIPPED, Status.KILLED)
ROLLUP_ACTION = "rollup"
# Instance locks held at once (renewed together, one roll-up write per chunk).
CHUNK = 200


@dataclass
class RollupReport:
    rolled: int = 0  # instances moved into roll-ups
    kept: int = 0  # instance folders of those months left in place (open, or a run holds them)
    months: list[str] | None = None


def roll_up(ledger: Ledger, process: str, before: datetime, run_id: str,
            step: Callable[[str], None] = lambda where: None) -> RollupReport:
    """Roll up the closed instances of `process` whose month ends at or before `before` (months are UTC).
    `step` is called between the steps (tests stop a roll-up there, as a kill would)."""
    report = RollupReport(months=[])
    refuse_links_in_ledger(ledger, process)
    lock = LeaseLock(ledger.fs, ledger.layout.rollup_folder(process), "lock", ledger.lease_seconds, ledger.clock)
    with holding(lock, run_id, f"roll-up of process '{process}'", LeaseDetails(action=ROLLUP_ACTION)) as held:
        by_month: dict[str, list[datetime]] = {}
        for t in sorted(ledger.folder_times(process)):
            if month_of(t) < month_of(before):
                by_month.setdefault(month_of(t), []).append(t)
        for month, times in sorted(by_month.items()):
            for first in range(0, len(times), CHUNK):
                held.check()
                rolled, kept = _roll_chunk(ledger, process, month, times[first:first + CHUNK], run_id, step)
                report.rolled += rolled
                report.kept += kept
            assert report.months is not None
            report.months.append(month)
    return report


def refuse_links_in_ledger(ledger: Ledger, process: str) -> None:
    """A StorageError naming a symbolic link on the way from the ledger's folder down to the process's roll-ups,
    before the roll-up's lease is taken: its lock, its month files and its deletions would go where the link
    leads, outside the ledger perhaps."""
    ledger.fs.refuse_links_below(ledger.layout.root, ledger.layout.rollup_folder(process))


def _roll_chunk(ledger: Ledger, process: str, month: str, times: list[datetime], run_id: str,
                step: Callable[[str], None]) -> tuple[int, int]:
    locks: dict[datetime, LeaseLock] = {}
    try:
        for t in times:
            lock = ledger.instance_lock(process, t)
            if _free(lock, ledger.clock()) and lock.try_acquire(run_id, LeaseDetails(action=ROLLUP_ACTION)).taken:
                locks[t] = lock
        with LeaseKeeper(list(locks.values()), ledger.lease_seconds / 3) as keeper:
            existing = read_rollup(ledger.fs, ledger.layout, process, month)
            closed: dict[datetime, RolledUp] = {}
            for t in locks:
                item = _closed(ledger, process, t)
                if item is not None:
                    closed[t] = item
            if not closed:
                return 0, len(times)
            step("read")
            keeper.ensure_held()
            ledger.fs.write_atomically(existing.path, existing.with_instances(closed).to_bytes())
            step("written")
        # Renewals stopped (one would write a lock file into a deleted folder): each lease has at least two
        # thirds of its length left, and each deletion first checks that enough of it is left.
        for t in sorted(closed):
            locks[t].ensure_held()
            ledger.fs.delete(ledger.layout.instance_folder(process, t), recursive=True)
            del locks[t]  # its lock went with its folder
            step("deleted")
        return len(closed), len(times) - len(closed)
    except LockLostError:
        locks.clear()  # a lost lock is its new holder's
        raise
    finally:
        for lock in locks.values():
            lock.release()


def _free(lock: LeaseLock, now: float) -> bool:
    """No run holds the instance, or did without releasing it, but a killed roll-up (whose lease is ours to take
    over): a killed run's lease is left for its next run, which records that attempt KILLED."""
    lease = lock.current()
    return lease is None or lease.state != HELD or (
        lease.details.action == ROLLUP_ACTION and not lease.live(now))


def _closed(ledger: Ledger, process: str, t: datetime) -> RolledUp | None:
    """The instance as a roll-up holds it, when it is closed (its record's status and every attempt's)."""
    record = ledger.instance(process, t)
    if record is None or record.status not in CLOSED:
        return None
    attempts = ledger.attempts(process, t)
    if any(attempt.status not in CLOSED for attempt in attempts):
        return None
    return RolledUp(record, tuple(attempts), tuple(ledger.late_checks(process, t)))
