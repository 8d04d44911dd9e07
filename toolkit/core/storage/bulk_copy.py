"""Copies batches of files between Hadoop file systems inside the Spark JVM, and CRC32Cs of files in bulk.

Why: a py4j call costs about 0.25 ms, so a copy of 20,000 small files cannot afford even one call per file.
`BulkCopier.copy` sends a whole batch as one string in one call; a pool of Java threads copies it (the
class `jvm/BulkCopy.java`, in the toolkit's jar: toolkit/core/storage/jvm_classes.py) and answers one string.
Bytes never pass through Python.

Per file, in the JVM: the source's status must match the caller's listing (length and modification time,
else "the source changed since it was listed"); the target is created anew (parents made, an existing file
replaced, never appended to) and the bytes are streamed with their CRC32C computed on the way; then
verified: the bytes read, the listed length and the target's length after close must agree, and where both
file systems keep a `FileChecksum` of the same algorithm (HDFS to HDFS) the two must be equal. Targets get
their file system's default block size and replication, so HDFS's MD5-of-MD5-of-CRC checksums of files
longer than a block compare only where both clusters use the same block size (their algorithm names differ
otherwise); COMPOSITE-CRC checksums always compare. A failed file is deleted; one failing file does not stop
the others. `copy` answers every outcome and raises nothing for a failed file: the caller decides
(`raise_for_failures` makes one StorageError of them).

Invariant the replication relies on: the target gets the source's modification time (and, by default, its
permission) only after the verify succeeded, as the last step. A file killed mid-copy (or a failed one whose
deletion failed too) keeps the fresh mtime of its writing and, mid-copy, a short length; so the rule "skip a
file whose target has the source's length and mtime" recopies it on the next run. Targets are written under
their final names: the caller chooses a staging directory that nothing reads until it is published.

`file:///` goes through java.nio in the same JVM, not through Hadoop's `RawLocalFileSystem`: without libhadoop
(pyspark ships none) that forks `chmod` for every file it creates (see `hadoop.py`); 500 files of 8 KiB took
4.4 s through it and 0.24 s through java.nio. Every other scheme goes through `FileSystem.get(uri,
hadoopConfiguration)`; `file://` through Hadoop's raw local file system stays available (`local_by_nio=False`)
so that the tests run the code path HDFS takes. Local permissions are the 9 rwx bits.

`copy_on_executors` runs the same Java copier in Spark tasks instead (`jvm/DistributedCopy.java`): the list split
into tasks of about equal bytes, each task copying its files with `BulkCopy` on its executor, the outcomes in the
same wire format plus where each task ran. The replication chooses it above a feed's thresholds
(actions/replication/copier_choice.py); the executors need the toolkit's jar (`spark.jars`, `--jars`).

`pyspark` and `py4j` are imported when a copier is made, never when this module is imported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.core.storage.filesystem import CopyResult, CopySlice, CopyTask, SpreadCopy, StorageError, normalize_uri
from toolkit.core.storage.java_errors import first_line
from toolkit.core.storage.jvm_classes import java_class, new_instance

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Measured with bench/copy_bench.py on 2 cores: 4 threads were never worse than 1, 2 or 8 on either data set
# (a thread waiting on the disk or on a page allocation leaves its core to another). The buffer is also the size of
# each write, and the kernel's page cache takes folios of that size: 256 KiB writes took 256 KiB folios, which came
# out of whole free 2 MiB blocks (/proc/vmstat's nr_free_pages_blocks fell by 0.5-0.75 GiB per 2 GiB copied), and
# those runs took 0.34 to 1.86 s; on a VM that hands free 2 MiB blocks back to its host (free page reporting), the
# host must back such a block again on its first touch. 64 KiB writes took their folios from smaller free blocks
# (no whole block taken) and copied 2 GiB in 0.39-0.46 s run after run; 4 KiB ones in 0.71-0.84 s.
DEFAULT_THREADS = 4
DEFAULT_BUFFER = 64 * 1024  # bytes per read and write
BATCH = 50_000  # tasks per JVM call: the strings stay a few MB
_SEPARATOR = "\0"  # cannot occur in a path
_SLICE_FACTS = 6  # per task of a distributed copy: executor id, host, files, bytes, milliseconds, attempt
_FULL_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")
_REASONS = {
    "java.io.FileNotFoundException": "no such file or directory",
    "java.nio.file.NoSuchFileException": "no such file or directory",
    "java.nio.file.AccessDeniedException": "permission denied",
    "org.apache.hadoop.security.AccessControlException": "permission denied",
    "java.nio.file.FileSystemException": "the file system refused it",
}


def raise_for_failures(results: Sequence[CopyResult]) -> None:
    """One StorageError naming the first failed file and how many failed; nothing when all succeeded."""
    failed = [result for result in results if not result.ok]
    if not failed:
        return
    first = failed[0]
    raise StorageError(f"Cannot copy {first.task.source} to {first.task.target}: {_reason(first.error or '')} "
                       f"({len(failed)} of {len(results)} files failed).")


def _reason(error: str) -> str:
    """A Java error line (`class: message`) as a reason; a verification's message is its own reason."""
    name, _, message = error.partition(": ")
    if name in _REASONS:
        return f"{_REASONS[name]} ({message})" if message else _REASONS[name]
    return error.rstrip(".")


class BulkCopier:
    """Copies (and checksums) batches of files in the JVM of `spark`, `threads` files at a time."""

    def __init__(self, spark: SparkSession, threads: int = DEFAULT_THREADS, buffer_size: int = DEFAULT_BUFFER,
                 *, local_by_nio: bool = True) -> None:
        """`local_by_nio=False` runs `file://` through Hadoop's RawLocalFileSystem, the code path of every
        other scheme (slow on local disks: for tests)."""
        from py4j.protocol import Py4JError, Py4JJavaError
        from pyspark.errors.exceptions.captured import CapturedException

        if threads < 1:
            raise ValueError("threads must be at least 1")
        self._errors: tuple[type[BaseException], ...] = (Py4JError, Py4JJavaError, CapturedException)
        jvm = spark._jvm
        if jvm is None:
            raise StorageError("The Spark session has no JVM (it was stopped): start a new session.")
        self.threads = threads
        gateway = self._gateway = spark.sparkContext._gateway
        conf = self._conf = spark._jsc.hadoopConfiguration()
        self._spark_context = spark._jsc.sc()
        self._buffer_size, self._local_by_nio = buffer_size, local_by_nio
        self._distributed: Any = None  # the Java DistributedCopy, made by the first copy_on_executors
        encoding = str(jvm.java.lang.System.getProperty("sun.jnu.encoding") or "")
        self._unicode_names = encoding.replace("-", "").upper() == "UTF8"
        try:
            self._copier = new_instance(gateway, java_class(gateway, conf, "BulkCopy"), conf, threads, buffer_size,
                                        local_by_nio)
        except self._errors as err:
            raise StorageError(f"Cannot prepare the bulk copier in the Spark JVM: {first_line(err)}.") from None

    def copy(self, tasks: Iterable[CopyTask], preserve_permission: bool = True) -> list[CopyResult]:
        """Copy every task (one JVM call per `BATCH` tasks); the outcomes in the tasks' order.

        A task whose source and target are the same file, or whose path cannot be sent, fails on its own
        without reaching the JVM. StorageError only when the JVM cannot be reached or a path is no full URI.
        """
        return self._copy(list(tasks), lambda joined: self._call("copy", self._copier.copy, joined,
                                                                 preserve_permission))

    def copy_on_executors(self, tasks: Iterable[CopyTask], slices: int,
                          preserve_permission: bool = True) -> SpreadCopy:
        """`copy` as one Spark job per `BATCH` tasks (`jvm/DistributedCopy.java`): the files split into at most
        `slices` tasks of about equal bytes, each copied on its executor by this copier's Java class with as
        many threads; the same checks and outcomes, and where each task ran. StorageError when the job fails
        (an executor lost more often than Spark retries, spark.speculation on): nothing is known of its files."""
        ran: list[CopySlice] = []

        def send(joined: str) -> str:
            answer = self._call("copy on the executors", self._spread().copy, joined, preserve_permission, slices)
            count, _, rest = answer.partition(_SEPARATOR)
            fields = rest.split(_SEPARATOR) if rest else []
            facts = _SLICE_FACTS * int(count)
            ran.extend(CopySlice(fields[i], fields[i + 1], int(fields[i + 2]), int(fields[i + 3]),
                                 int(fields[i + 4]) / 1000, int(fields[i + 5])) for i in range(0, facts, _SLICE_FACTS))
            return _SEPARATOR.join(fields[facts:])

        return SpreadCopy(self._copy(list(tasks), send), tuple(ran))

    def _spread(self) -> Any:
        """The Java DistributedCopy of this copier's session, made on first use."""
        if self._distributed is None:
            try:
                self._distributed = new_instance(self._gateway, java_class(self._gateway, self._conf,
                                                                           "DistributedCopy"),
                                                 self._spark_context, self._conf, self.threads, self._buffer_size,
                                                 self._local_by_nio)
            except self._errors as err:
                raise StorageError(f"Cannot prepare the distributed copier in the Spark JVM: {first_line(err)}.") \
                    from None
        return self._distributed

    def _copy(self, tasks: list[CopyTask], send: Callable[[str], str]) -> list[CopyResult]:
        """The tasks that can be sent, `BATCH` at a time through `send` (4 fields per task in, 3 per task out);
        the others fail on their own."""
        results: list[CopyResult | None] = [None] * len(tasks)
        sent: list[int] = []
        for index, task in enumerate(tasks):
            problem = self._refusal(task)
            if problem is None:
                sent.append(index)
            else:
                results[index] = CopyResult(task, 0, "", problem)
        for start in range(0, len(sent), BATCH):
            batch = sent[start:start + BATCH]
            fields: list[str] = []
            for index in batch:
                task = tasks[index]
                fields += (normalize_uri(task.source), normalize_uri(task.target), str(task.length),
                           str(task.modification_time))
            answer = send(_SEPARATOR.join(fields))
            for index, (copied, crc, error) in zip(batch, _triples(answer, len(batch)), strict=True):
                results[index] = CopyResult(tasks[index], copied, crc, error)
        return [result for result in results if result is not None]

    def checksums(self, paths: Sequence[str]) -> dict[str, str]:
        """CRC32C (8 hex digits) of each file's bytes, by path as given; one StorageError naming the first
        file that could not be read and how many could not."""
        for path in paths:
            self._check_uri(path)
            if not path.isascii() and path.startswith("file:") and not self._unicode_names:
                raise StorageError(f"Cannot checksum {path}: it has a non-ASCII name, which this JVM cannot spell "
                                   f"(its sun.jnu.encoding is not UTF-8): run it under a UTF-8 locale.")
        wanted = list(dict.fromkeys(paths))
        answers: list[tuple[int, str, str | None]] = []
        for start in range(0, len(wanted), BATCH):
            batch = wanted[start:start + BATCH]
            joined = _SEPARATOR.join(normalize_uri(path) for path in batch)
            answers += _triples(self._call("checksum", self._copier.checksums, joined), len(batch))
        failed = [(path, error) for path, (_, _, error) in zip(wanted, answers, strict=True) if error is not None]
        if failed:
            path, error = failed[0]
            raise StorageError(f"Cannot checksum {path}: {_reason(error)} ({len(failed)} of {len(wanted)} files "
                               f"could not be read).")
        return {path: crc for path, (_, crc, _) in zip(wanted, answers, strict=True)}

    # ----------------------------------------------------------------- plumbing
    def _refusal(self, task: CopyTask) -> str | None:
        self._check_uri(task.source)
        self._check_uri(task.target)
        if normalize_uri(task.source) == normalize_uri(task.target):
            return "the source and the target are the same file"
        for path in (task.source, task.target):
            if not path.isascii() and path.startswith("file:") and not self._unicode_names:
                return (f"{path} has a non-ASCII name, which this JVM cannot spell (its sun.jnu.encoding is not "
                        f"UTF-8): run it under a UTF-8 locale")
        return None

    @staticmethod
    def _check_uri(path: str) -> None:
        if _SEPARATOR in path or not _FULL_URI.match(path):
            raise StorageError(f"{path!r} is not a full URI: give scheme://authority/path (file:///x, "
                               f"hdfs://nn:8020/x).")

    def _call(self, operation: str, method: Any, *arguments: Any) -> str:
        try:
            return str(method(*arguments))
        except self._errors as err:
            raise StorageError(f"Cannot {operation} in the Spark JVM: {first_line(err)}.") from None


def _triples(answer: str, count: int) -> list[tuple[int, str, str | None]]:
    """The JVM's answer (3 NUL-separated fields per item) as (bytes, crc32c, error or None)."""
    fields = answer.split(_SEPARATOR) if count else []
    if len(fields) != 3 * count:
        raise StorageError(f"The bulk copier answered {len(fields)} fields for {count} files: a JVM-side bug.")
    return [(int(fields[i]), fields[i + 1], fields[i + 2] or None) for i in range(0, len(fields), 3)]

