"""What an import will do, decided before anything is touched (runner.plan_hive_import): the export it reads
and the partition it fills."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.actions.replication.hive.metadata import ExportMetadata
from toolkit.core.storage.catalog_records import PartitionAddress


@dataclass(frozen=True)
class ImportPlan:
    """The export in `source` (its `metadata` as read) and the partition `spec` of `database.table` it fills, the
    instance `time`'s."""

    source: str
    metadata: ExportMetadata
    time: datetime | None  # None: the export records no instance time, its own partition values are kept
    database: str
    table: str
    spec: dict[str, str]

    @property
    def address(self) -> PartitionAddress:
        return PartitionAddress(self.database, self.table, self.spec)
