"""A Hive export's or import's record of its instance (core/ledger/hive_transfers.py), written under the instance's
lease: RUNNING when the work starts, then how it ended. A failure the toolkit names (a partition not there yet,
an export consumed already) keeps its status (WAITING, SKIPPED, ...); any other error is FAILED with its sentence.
A kill (SIGKILL; a BaseException in tests) writes nothing more: RUNNING stays, read as KILLED once the lease is no
one's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from toolkit.clock import Clock
from toolkit.core.ledger.hive_transfers import HiveTransferRecord
from toolkit.core.ledger.record_files import InstanceRecords
from toolkit.core.ledger.records import wall_clock_stamp
from toolkit.errors import ToolkitError
from toolkit.services.runtime.status import STATUS_OF_EXIT
from toolkit.statuses import Status


@contextmanager
def recorded(records: InstanceRecords[HiveTransferRecord], first: HiveTransferRecord,
             clock: Clock) -> Iterator[None]:
    """`first` (RUNNING) written now, its end written when the block ends."""
    t = first.nominal
    records.write(first, t)
    try:
        yield
    except Exception as err:
        status = STATUS_OF_EXIT.get(err.exit_code, Status.FAILED) if isinstance(err, ToolkitError) else Status.FAILED
        if status not in (Status.WAITING, Status.SKIPPED):
            status = Status.FAILED  # a lease taken by another run meanwhile, a lost lease: this run failed
        records.write(replace(first, status=status, error=str(err), ended=wall_clock_stamp(clock.time())), t)
        raise
    records.write(replace(first, status=Status.SUCCEEDED, ended=wall_clock_stamp(clock.time())), t)
