"""Copying files and checksumming them in the Spark JVM, bytes never passing through Python.

Interim: `toolkit/storage/bulk_copy.py` (a JVM-side bulk copier, behind `FileSystem.copy_files`) is being
built; when it lands, `copy_files` and `crc32c_files` become calls to it and the rest of this module goes.
Until then, a few files at a time from a thread pool (py4j gives each thread its own connection), each in a
handful of JVM calls:
- between `file://` paths, java.nio: `FileChannel.transferTo` (the kernel copies, page cache to page cache, as
  `cp` does with copy_file_range), then the source's CRC32C over read-only memory maps of its pages, now cached
  (`CRC32C.update(MappedByteBuffer)`: the CPU's crc32 instruction, no copy to the heap);
- otherwise a stream copy in one call (commons-io `copyLarge`, 1 MiB buffer) from the source file system's input
  stream through a `CheckedInputStream` computing java.util.zip.CRC32C into the target file system's output
  stream, through the file systems the session's Hadoop configuration gives.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.storage.catalog import java_error, one_line
from toolkit.storage.filesystem import StorageError, normalize_uri
from toolkit.storage.local import to_local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BUFFER_BYTES = 1 << 20
THREADS = 4
_MAP_BYTES = 1 << 30
# py4j gateway -> (the SparkContext's Java object, the helpers made for it)
_per_gateway: weakref.WeakKeyDictionary[Any, tuple[Any, _JvmFiles]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class CopyTask:
    """One file to copy; `length` is what the listing said (a different count copied is an error)."""

    source: str
    target: str
    length: int
    modification_time: int = 0


@dataclass(frozen=True)
class CopiedFile:
    source: str
    target: str
    bytes: int
    crc32c: str  # 8 hex digits of the bytes read


def crc_hex(value: int) -> str:
    return f"{value & 0xFFFFFFFF:08x}"


class _JvmFiles:
    """Streams between Hadoop file systems in the session's JVM; one FileSystem object per scheme and authority."""

    def __init__(self, spark: SparkSession, local_by_nio: bool = True) -> None:
        jvm = spark._jvm
        self._local_by_nio = local_by_nio
        if jvm is None:
            raise StorageError("The Spark session has no JVM (it was stopped): start a new session.")
        self._jvm = jvm
        self._gateway = spark.sparkContext._gateway
        self._conf = spark._jsc.hadoopConfiguration()
        self._systems: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._copy_large = jvm.org.apache.commons.io.IOUtils.copyLarge
        self._null_output = jvm.java.io.OutputStream.nullOutputStream
        self._path = jvm.org.apache.hadoop.fs.Path
        nio = jvm.java.nio
        self._files, self._paths_get, self._channel = nio.file.Files, nio.file.Paths.get, nio.channels.FileChannel
        self._read_only = getattr(nio.channels, "FileChannel$MapMode").READ_ONLY
        self._no_strings = self._gateway.new_array(jvm.java.lang.String, 0)
        self._no_attributes = self._gateway.new_array(nio.file.attribute.FileAttribute, 0)
        options = nio.file.StandardOpenOption
        self._read = self._gateway.new_array(nio.file.OpenOption, 1)
        self._read[0] = options.READ
        self._create_new = self._gateway.new_array(nio.file.OpenOption, 2)
        self._create_new[0], self._create_new[1] = options.CREATE_NEW, options.WRITE

    def _local(self, uri: str) -> Any | None:
        """The java.nio Path of a `file://` URI; None for any other scheme."""
        if not self._local_by_nio or not uri.lower().startswith("file:"):
            return None
        return self._paths_get(to_local_path(uri), self._no_strings)

    def _map_crc(self, channel: Any, size: int) -> str:
        """CRC32C of a local file through read-only memory maps (at most 1 GiB each: a map holds < 2 GiB)."""
        crc = self._jvm.java.util.zip.CRC32C()
        position = 0
        while position < size:
            length = min(_MAP_BYTES, size - position)
            crc.update(channel.map(self._read_only, position, length))
            position += length
        return crc_hex(int(crc.getValue()))

    def _copy_local(self, task: CopyTask, source: Any, target: Any) -> CopiedFile:
        """Kernel copy, then the source's CRC32C from its (now cached) pages."""
        created = False
        try:
            self._files.createDirectories(target.getParent(), self._no_attributes)
            reading = self._channel.open(source, self._read)
            try:
                writing = self._channel.open(target, self._create_new)
                created = True
                try:
                    size, copied = int(reading.size()), 0
                    while copied < size:
                        moved = int(reading.transferTo(copied, size - copied, writing))
                        if moved <= 0:
                            break
                        copied += moved
                finally:
                    writing.close()
                crc = self._map_crc(reading, copied)
            finally:
                reading.close()
        except Exception as error:
            if created:
                _quietly(lambda: self._files.deleteIfExists(target))
            raise StorageError(f"Cannot copy {normalize_uri(task.source)} to {normalize_uri(task.target)}: "
                               f"{one_line(java_error(error)[1] or str(error), 200)}.") from None
        if copied != task.length:
            _quietly(lambda: self._files.deleteIfExists(target))
            raise StorageError(f"Cannot copy {normalize_uri(task.source)}: {copied} bytes were read where its listing "
                               f"said {task.length} (it changed during the copy); run again.")
        return CopiedFile(task.source, task.target, copied, crc)

    def _fs(self, uri: str) -> Any:
        scheme_end = uri.find("://")
        authority_end = uri.find("/", scheme_end + 3) if scheme_end >= 0 else -1
        key = uri[:authority_end] if authority_end >= 0 else uri
        with self._lock:
            system = self._systems.get(key)
            if system is None:
                if key.lower().startswith("file:"):
                    system = self._jvm.org.apache.hadoop.fs.RawLocalFileSystem()
                    system.initialize(self._jvm.java.net.URI.create("file:///"), self._conf)
                else:
                    system = self._path(uri).getFileSystem(self._conf)
                self._systems[key] = system
        return system

    def _buffer(self) -> Any:
        return self._gateway.new_array(self._jvm.byte, BUFFER_BYTES)

    def copy(self, task: CopyTask) -> CopiedFile:
        source, target_path = self._local(task.source), self._local(task.target)
        if source is not None and target_path is not None:
            return self._copy_local(task, source, target_path)
        source_fs, target_fs = self._fs(task.source), self._fs(task.target)
        target = self._path(task.target)
        crc = self._jvm.java.util.zip.CRC32C()
        created = False
        try:
            stream = self._jvm.java.util.zip.CheckedInputStream(source_fs.open(self._path(task.source)), crc)
            try:
                output = target_fs.create(target, False)  # never over an existing file; parents are made
                created = True
                try:
                    copied = int(self._copy_large(stream, output, self._buffer()))
                finally:
                    output.close()
            finally:
                stream.close()
        except Exception as error:
            if created:
                _quietly(lambda: target_fs.delete(target, False))
            raise StorageError(f"Cannot copy {normalize_uri(task.source)} to {normalize_uri(task.target)}: "
                               f"{one_line(java_error(error)[1] or str(error), 200)}.") from None
        if copied != task.length:
            _quietly(lambda: target_fs.delete(target, False))
            raise StorageError(f"Cannot copy {normalize_uri(task.source)}: {copied} bytes were read where its listing "
                               f"said {task.length} (it changed during the copy); run again.")
        return CopiedFile(task.source, task.target, copied, crc_hex(int(crc.getValue())))

    def crc32c(self, path: str) -> str:
        crc = self._jvm.java.util.zip.CRC32C()
        try:
            local = self._local(path)
            if local is not None:
                channel = self._channel.open(local, self._read)
                try:
                    return self._map_crc(channel, int(channel.size()))
                finally:
                    channel.close()
            stream = self._jvm.java.util.zip.CheckedInputStream(self._fs(path).open(self._path(path)), crc)
            try:
                self._copy_large(stream, self._null_output(), self._buffer())
            finally:
                stream.close()
        except Exception as error:
            raise StorageError(f"Cannot read {normalize_uri(path)} to checksum it: "
                               f"{one_line(java_error(error)[1] or str(error), 200)}.") from None
        return crc_hex(int(crc.getValue()))


def _files_of(spark: SparkSession) -> _JvmFiles:
    """One helper per JVM: its class lookups (a py4j round trip each) are made once."""
    gateway = spark.sparkContext._gateway
    made = _per_gateway.get(gateway)
    if made is None or made[0] is not spark._jsc:  # none yet, or made for a SparkContext since stopped
        made = _per_gateway[gateway] = (spark._jsc, _JvmFiles(spark))
    return made[1]


def _quietly(action: Any) -> None:
    with suppress(Exception):  # best effort while another error is on its way out
        action()


def _parallel(action: Any, items: Sequence[Any]) -> list[Any]:
    if len(items) <= 1:
        return [action(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(THREADS, len(items))) as pool:
        return list(pool.map(action, items))


def copy_files(spark: SparkSession, tasks: Sequence[CopyTask], *, local_by_nio: bool = True) -> list[CopiedFile]:
    """Copy each task's file (targets must not exist; parents are created), with the CRC32C of the bytes read,
    in the order of `tasks`; StorageError for the first that fails. The one place to switch to
    toolkit.storage.bulk_copy (`fs.copy_files(tasks)`, then `raise_for_failures`). `local_by_nio=False` sends
    `file://` through Hadoop's streams too, the way every other scheme goes (the tests use it)."""
    files = _files_of(spark) if local_by_nio else _JvmFiles(spark, local_by_nio=False)
    return _parallel(files.copy, list(tasks))


def crc32c_files(spark: SparkSession, paths: Sequence[str], *, local_by_nio: bool = True) -> dict[str, str]:
    """The CRC32C (8 hex digits) of each file, by path. The one place to switch to BulkCopier.checksums."""
    files = _files_of(spark) if local_by_nio else _JvmFiles(spark, local_by_nio=False)
    return dict(zip(paths, _parallel(files.crc32c, list(paths)), strict=True))
