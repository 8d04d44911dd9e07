"""Which copier copies a folder's files: the driver's (the bulk copier's threads in the driver's JVM), or, above the
feed's thresholds (`replication.distributed-above-bytes` / `-files`, core/entities/replication_settings.py), a Spark
job over the executors (core/storage/jvm/DistributedCopy.java). Why a threshold: a job costs seconds of scheduling that
a small folder does not pay back, while a terabyte through one driver leaves every executor idle. A file system
without executors (the local one) always copies here. The choice made is kept for the run record."""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.core.entities.replication_settings import ReplicationSettings
from toolkit.core.storage.filesystem import CopyResult, CopySlice, CopyTask, FileSystem

DRIVER = "driver"
EXECUTORS = "executors"


class ChosenCopier:
    """A `files.Copier` that picks the driver or the executors per call; `method` and `slices` say what the last
    call used (None and () before any)."""

    def __init__(self, fs: FileSystem, settings: ReplicationSettings) -> None:
        self.fs, self.settings = fs, settings
        self.method: str | None = None
        self.slices: tuple[CopySlice, ...] = ()

    def __call__(self, tasks: Sequence[CopyTask]) -> list[CopyResult]:
        threads, preserve = self.settings.copy_threads, self.settings.preserve_permission
        if self.settings.distributed(len(tasks), sum(task.length for task in tasks)):
            spread = self.fs.copy_files_on_executors(tasks, threads, preserve)
            if spread is not None:
                self.method, self.slices = EXECUTORS, spread.slices
                return spread.results
        self.method, self.slices = DRIVER, ()
        return self.fs.copy_files(tasks, threads, preserve)
