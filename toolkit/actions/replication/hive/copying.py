"""Copying an export's files and checksumming them: the storage layer's JVM bulk copier
(`toolkit/core/storage/bulk_copy.py`, through `FileSystem.copy_files`), bytes never passing through Python.

Each file's CRC32C is computed by the copier on the way (the bytes read from the source), and checked against
the file's listed length and modification time; a failed file fails the whole copy with one StorageError.
Where a file system's copier computes no CRC32C (the pure-Python local one), the copies are checksummed
after, in the JVM. Checksums of files at rest come from the same copier (`BulkCopier.checksums`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.core.storage.filesystem import CopyTask, FileSystem

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["CopiedFile", "CopyTask", "copy_files", "crc32c_files"]


@dataclass(frozen=True)
class CopiedFile:
    source: str
    target: str
    bytes: int
    crc32c: str  # 8 hex digits of the bytes read


def copy_files(spark: SparkSession, fs: FileSystem, tasks: Sequence[CopyTask], *,
               local_by_nio: bool = True) -> list[CopiedFile]:
    """Copy each task's file (parents are created, a target there is replaced) with the CRC32C of its bytes,
    in the order of `tasks`; StorageError naming the first that failed. `local_by_nio=False` sends `file://`
    through Hadoop's streams, the way every other scheme goes (the tests use it)."""
    from toolkit.core.storage.bulk_copy import BulkCopier, raise_for_failures

    tasks = list(tasks)
    results = fs.copy_files(tasks) if local_by_nio else BulkCopier(spark, local_by_nio=False).copy(tasks)
    raise_for_failures(results)
    unsummed = [result.task.target for result in results if not result.crc32c]
    sums = crc32c_files(spark, unsummed) if unsummed else {}
    return [CopiedFile(result.task.source, result.task.target, result.bytes,
                       result.crc32c or sums[result.task.target]) for result in results]


def crc32c_files(spark: SparkSession, paths: Sequence[str], *, local_by_nio: bool = True) -> dict[str, str]:
    """The CRC32C (8 hex digits) of each file, by path; StorageError naming the first that cannot be read."""
    from toolkit.core.storage.bulk_copy import BulkCopier

    return BulkCopier(spark, local_by_nio=local_by_nio).checksums(paths)
