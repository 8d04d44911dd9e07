"""A Hive export's or import's record of its instance (core/ledger/hive_transfers.py), written under the instance's
lease: RUNNING when the work starts, then how it ended. A failure the toolkit names (a partition not there yet,
an export consumed already) keeps its status (WAITING, SKIPPED, ...); any other error is FAILED with its sentence,
its secrets masked.
A kill (SIGKILL; a BaseException in tests) writes nothing more: RUNNING stays, read as KILLED once the lease is no
one's. A run whose lease was taken over writes nothing more either: the record is its successor's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from toolkit.clock import Clock
from toolkit.core.ledger.hive_transfers import HiveTransferRecord
from toolkit.core.ledger.kill_requests import RunKilledError
from toolkit.core.ledger.locks import LockLostError
from toolkit.core.ledger.record_files import InstanceRecords
from toolkit.core.ledger.records import wall_clock_stamp
from toolkit.core.ledger.run_locks import HeldLease
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import ToolkitError
from toolkit.secrets_masking import masked
from toolkit.services.runtime.status import STATUS_OF_EXIT
from toolkit.statuses import Status


@contextmanager
def recorded(records: InstanceRecords[HiveTransferRecord], first: HiveTransferRecord, clock: Clock,
             lease: HeldLease) -> Iterator[None]:
    """`first` (RUNNING) written now, its end written when the block ends while `lease` is still this run's;
    LockLostError at the end of a block that succeeded once it is not."""
    t = first.nominal
    records.write(first, t)
    try:
        yield
    except Exception as err:
        status = STATUS_OF_EXIT.get(err.exit_code, Status.FAILED) if isinstance(err, ToolkitError) else Status.FAILED
        if status not in (Status.WAITING, Status.SKIPPED):
            status = Status.FAILED  # a lease taken by another run meanwhile, a lost lease: this run failed
        if _ours(lease):
            records.write(replace(first, status=status, error=masked(str(err)), ended=wall_clock_stamp(clock.time())),
                          t)
        raise
    if not _ours(lease):
        raise LockLostError(f"The lease of the {lease.what} was taken over before this run recorded its end: the "
                            "instance's record is the run's that took it over.")
    records.write(replace(first, status=Status.SUCCEEDED, ended=wall_clock_stamp(clock.time())), t)


def _ours(lease: HeldLease) -> bool:
    """Whether the lease is still this run's (a run asked to end still holds it)."""
    try:
        lease.check()
    except (LockLostError, StorageError):
        return False
    except RunKilledError:  # asked to end (`toolkit kill`): the lease is still this run's
        return True
    return True
