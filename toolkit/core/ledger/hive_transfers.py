"""The ledger's records of the Hive export and import of a table feed's instances
(toolkit/actions/replication/hive/):

    <working>/ledger/hive-exports/<feed>/<yyyyMMddTHHmmZ>.json   an export of an instance: its run, state, directory
    <working>/ledger/hive-imports/<feed>/<yyyyMMddTHHmmZ>.json   an import of an instance: its run, state, the export

A run writes its record under the instance's lease (the export's, or the import's partition lease): RUNNING once it
holds it, its end state when it ends. A run killed in between leaves RUNNING, which `toolkit rerun` reads as KILLED
once no live run holds the lease. The record keeps what the call was given that the feed does not say (the
directory, the import's options), so that the instance can be called again as it was."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Literal

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import InstanceRecords
from toolkit.core.ledger.records import Minute, Stamp, record_time
from toolkit.core.storage.filesystem import FileSystem
from toolkit.statuses import Status

HIVE_STATUSES = (Status.RUNNING, Status.SUCCEEDED, Status.FAILED, Status.WAITING, Status.SKIPPED)
HiveAction = Literal["hive-export", "hive-import"]


@dataclass(frozen=True)
class HiveTransferRecord:
    """One run's export or import of an instance of a table feed on a cluster: the run, its state, the partition
    (`table` as `database.table`, `partition` as `k=v/...`), the export `directory` it wrote or read, and for an import
    the options it was called with."""

    feed: str
    cluster: str
    time: Minute
    run_id: str
    status: Annotated[Status, HIVE_STATUSES]
    started: Stamp
    table: str
    partition: str
    directory: str
    ended: Stamp | None = None
    error: str | None = None
    keep_export: bool = False
    checksums: bool = True
    table_location: str | None = None

    @property
    def nominal(self) -> datetime:
        return record_time(self.time)


def hive_records(fs: FileSystem, layout: LedgerLayout, action: HiveAction, feed: str) -> InstanceRecords[
        HiveTransferRecord]:
    """A feed's records of `action` in a cluster's ledger."""
    return InstanceRecords(fs, layout.transfer_folder(f"{action}s", feed), HiveTransferRecord)
