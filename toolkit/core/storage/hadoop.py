"""Hadoop's `FileSystem` API through the active SparkSession's JVM: the schemes the session's Hadoop
configuration knows (hdfs, file, ...; object stores such as s3a and abfs are refused before any action runs,
see toolkit/core/entities/object_stores.py). `local.LocalFileSystem` passes the same contract tests
(`tests/integration/storage`); where the two could differ, this module follows these decisions:

- `file://` goes through Hadoop's `RawLocalFileSystem`, not through what `Path.getFileSystem` answers. In this
  pyspark that is Hive's `ProxyLocalFileSystem` around `LocalFileSystem`, a `ChecksumFileSystem`: it writes a
  `.NAME.crc` beside every file, hides those from listings and globs, and carries them along on rename and
  delete. Through the raw one a tree holds exactly what we wrote, both implementations see the same entries,
  and `.crc` files that Spark's own writers leave are listed by both as the plain files they are.
- On `file://`, creations (mkdirs, write_atomically, create_exclusive) and local-to-local copies use java.nio
  and commons-io in the same JVM instead: pyspark ships no libhadoop, so `RawLocalFileSystem` forks `chmod` for
  every file and directory it creates (7-11 ms each; `FileUtil.copy` of 200 small files took 1.2 s, commons-io
  0.03 s), and its `create(path, false)` checks `exists()` and then opens: racing lock takers both won in a
  test. `create_exclusive` is `Files.write(.., CREATE_NEW)` = `open(O_CREAT|O_EXCL)`.
- `write_atomically` writes `.NAME.<random>.tmp` beside the target (never over an existing file), then renames
  it into place: on `file://` with `Files.move(.., ATOMIC_MOVE)` = `rename(2)`, which replaces a file
  atomically; elsewhere with `FileContext.rename(.., Options.Rename.OVERWRITE)`: on HDFS one `rename2` in the
  NameNode, atomic (`FileSystem.rename` refuses an existing target there, or moves into it when it is a
  directory). `FileContext` is not used on `file://`: its local rename with OVERWRITE is `AbstractFileSystem`'s
  default, delete then rename. Object stores (s3a) have no atomic rename at all: copy then delete.
  A target that is a directory is refused; no temporary file is left behind on failure.
- `create_exclusive` elsewhere is `FileSystem.create(path, false)`, atomic in HDFS's NameNode.
- `rename` refuses an existing target in the same call that renames, so two racing renames onto one target
  have one winner (`FileSystem.rename` onto an existing directory moves the source *into* it on HDFS, and a
  check before it races): elsewhere `FileContext.rename(.., Options.Rename.NONE)`, on HDFS one `rename2` in
  the NameNode; on `file://` the driver's own disk is renamed through `local.rename_no_replace`
  (`renameat2(RENAME_NOREPLACE)`; neither java.nio nor Hadoop's local file systems have a rename that refuses
  an existing target in one step, and `RawLocalFileSystem.rename` falls back to a copy when `rename(2)`
  fails). `copy` refuses an existing target up front. Both create the target's parent. `copy` never moves
  bytes through Python (`FileUtil.copy` across file systems).
- Symbolic links: `RawLocalFileSystem` stats through them (its listings call a link to a folder a folder), so on
  `file://` every listing and status asks java.nio which entries are links (in the same JVM call,
  `jvm/TreeLister`) and reports them as links (`FileStatus.is_link`); elsewhere Hadoop's own `isSymlink` is
  used. A link is never listed into, walked or copied (the bulk copier refuses one); Hadoop's delete removes a
  link, not its target.
- `delete` answers False only when the path is really gone (Hadoop's local delete also answers False when it
  could not delete a tree): a path still there afterwards is a StorageError.
- `checksum` is `getFileChecksum` as `algorithm:hexbytes` (the bytes of its Writable form, as Hadoop's
  `FileChecksum.equals` compares them); None where the file system keeps none (the local one).
- `list` of a file is a StorageError (Hadoop would list the file itself); `glob` answers [] where Hadoop
  answers null. Hadoop's globs match names that start with a dot (`*` matches `.x`). Hadoop's Path cannot
  hold a relative name with a ':', so a glob that meets such a name is a StorageError (listing is fine).
- Non-ASCII `file://` paths need a JVM whose `sun.jnu.encoding` is UTF-8 (a UTF-8 locale such as C.UTF-8):
  otherwise java.io would silently turn the name into `?`s, so such a path is refused with a StorageError.
- A Java failure (py4j's `Py4JJavaError`, or the exception pyspark converts it to) becomes one StorageError
  sentence naming the operation, the path and the cause.

Speed: every JVM call costs about 0.1-0.3 ms and a Java exception 10-25 ms (pyspark converts it through a
dozen more calls), so expected outcomes (a missing path to delete) are checked, not caught in Python, and
`read_if_exists` answers a missing file in one call (`jvm/SmallFiles`). `exists`, `status` and `list` are one
call each (`jvm/TreeLister`: the path made, looked up or listed, a missing path caught and links found in the
JVM, every entry's getters read and answered as one string, a NUL-separated record per entry). `list_many`
lists a whole batch of directories in about five calls (`listStatus(Path[])`), and `total_sizes` (from the
interface) builds on it; what remains is Hadoop's own work:
`RawLocalFileSystem.listStatus` makes about six system calls per entry.
`pyspark` and `py4j` are imported when an instance is made, never when this module is imported.
"""

from __future__ import annotations

import builtins
import os
import re
import secrets
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from toolkit.core.storage.filesystem import (
    CopyResult,
    CopyTask,
    FileStatus,
    FileSystem,
    SpreadCopy,
    StorageError,
    TreeDigest,
    hidden_sibling,
    normalize_uri,
    parent_of,
    plain_uri,
)
from toolkit.core.storage.java_errors import java_class_name, java_message
from toolkit.core.storage.local import rename_no_replace, to_local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(//([^/]*))?")
_SEPARATOR = "\0"  # cannot occur in a path
LISTING_THREADS = 4  # slices of a large batch listed at once (py4j gives each thread a connection)
_PARALLEL_SLICE = 256  # below this many paths a batch stays one call
_REASONS = {
    "java.io.FileNotFoundException": "no such file or directory",
    "java.nio.file.NoSuchFileException": "no such file or directory",
    "org.apache.hadoop.fs.FileAlreadyExistsException": "it exists already",
    "java.nio.file.FileAlreadyExistsException": "it exists already",
    "org.apache.hadoop.fs.PathIsNotEmptyDirectoryException": "the directory is not empty",
    "org.apache.hadoop.fs.ParentNotDirectoryException": "a parent is not a directory",
    "org.apache.hadoop.security.AccessControlException": "permission denied",
    "java.nio.file.AccessDeniedException": "permission denied",
    "org.apache.hadoop.fs.UnsupportedFileSystemException": "no file system is configured for its scheme",
}


def _scheme_and_authority(uri: str) -> tuple[str, str]:
    found = _SCHEME.match(uri)
    if found is None:
        raise StorageError(f"{uri} is not a full URI: give scheme://authority/path (file:///x, hdfs://nn:8020/x).")
    return found.group(1).lower(), found.group(3) or ""


class HadoopFileSystem(FileSystem):
    """Every operation through `spark`'s JVM; FileSystem objects are cached per scheme and authority."""

    def __init__(self, spark: SparkSession) -> None:
        from py4j.java_gateway import JavaClass
        from py4j.protocol import Py4JError, Py4JJavaError, Py4JNetworkError
        from pyspark.errors.exceptions.captured import CapturedException

        self._java_errors: tuple[type[BaseException], ...] = (Py4JJavaError, CapturedException)
        self._gone_errors: tuple[type[BaseException], ...] = (Py4JNetworkError,)
        self._py4j_error = Py4JError
        jvm = spark._jvm
        gateway = spark.sparkContext._gateway
        if jvm is None or gateway is None:
            raise StorageError("The Spark session has no JVM (it was stopped): start a new session.")
        self._jvm = jvm
        self._spark = spark
        self._copiers: dict[int, Any] = {}
        self._tree_listers: dict[bool, Any] = {}  # by whether file:// goes through java.nio
        self._small_file_reader: Any = None
        self._conf = spark._jsc.hadoopConfiguration()
        hadoop = jvm.org.apache.hadoop
        # Every class or static-method lookup through py4j is a round trip: look each up once.
        self._path_class = hadoop.fs.Path
        self._string_to_path = hadoop.util.StringUtils.stringToPath
        self._file_util_copy = hadoop.fs.FileUtil.copy
        self._split_on_separator = jvm.java.util.regex.Pattern.compile(_SEPARATOR).split
        self._files = jvm.java.nio.file.Files
        self._paths_get = jvm.java.nio.file.Paths.get
        self._no_strings = gateway.new_array(jvm.java.lang.String, 0)
        self._no_attributes = gateway.new_array(jvm.java.nio.file.attribute.FileAttribute, 0)
        open_options = jvm.java.nio.file.StandardOpenOption
        self._create_new = gateway.new_array(jvm.java.nio.file.OpenOption, 2)
        self._create_new[0] = open_options.CREATE_NEW
        self._create_new[1] = open_options.WRITE
        self._atomic_move = gateway.new_array(jvm.java.nio.file.CopyOption, 1)
        self._atomic_move[0] = jvm.java.nio.file.StandardCopyOption.ATOMIC_MOVE
        utilities = jvm.org.apache.commons.io.FileUtils  # shipped with Spark; a JavaPackage if it is not there
        self._local_copies = (jvm.java.io.File, utilities) if isinstance(utilities, JavaClass) else None
        rename_options = getattr(hadoop.fs, "Options$Rename")
        self._overwrite = gateway.new_array(rename_options, 1)
        self._overwrite[0] = rename_options.OVERWRITE
        self._no_replace = gateway.new_array(rename_options, 1)
        self._no_replace[0] = rename_options.NONE
        self._jnu_encoding = str(jvm.java.lang.System.getProperty("sun.jnu.encoding") or "")
        self._systems: dict[tuple[str, str], Any] = {}
        self._contexts: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()
        # Schemes whose creations go through java.nio on the driver's disk (see the module's docstring); the
        # tests empty it to run the contract through the code paths that HDFS takes.
        self._nio_schemes = frozenset({"file"})

    # ----------------------------------------------------------------- plumbing
    def _fs(self, uri: str) -> Any:
        plain_uri(uri)  # a '.' or '..' segment: refused before Hadoop's Path resolves it away
        key = _scheme_and_authority(uri)
        if key[0] == "file" and not uri.isascii() and self._jnu_encoding.replace("-", "").upper() != "UTF8":
            raise StorageError(
                f"Cannot use {normalize_uri(uri)}: the Spark JVM encodes file names as {self._jnu_encoding}, "
                f"not UTF-8; start it under a UTF-8 locale (LANG=C.UTF-8)."
            )
        system = self._systems.get(key)
        if system is None:
            with self._lock:
                system = self._systems.get(key)
                if system is None:
                    system = self._call("reach", uri, lambda: self._new_fs(key, uri))
                    self._systems[key] = system
        return system

    def _new_fs(self, key: tuple[str, str], uri: str) -> Any:
        if key[0] == "file":
            raw = self._jvm.org.apache.hadoop.fs.RawLocalFileSystem()
            raw.initialize(self._jvm.java.net.URI.create("file:///"), self._conf)
            return raw
        return self._path_class(uri).getFileSystem(self._conf)

    def _context(self, uri: str) -> Any:
        key = _scheme_and_authority(uri)
        context = self._contexts.get(key)
        if context is None:
            context = self._call("reach", uri, lambda: self._jvm.org.apache.hadoop.fs.FileContext.getFileContext(
                self._fs(uri).getUri(), self._conf))
            self._contexts[key] = context
        return context

    def _path(self, uri: str) -> Any:
        return self._call("use", uri, lambda: self._path_class(uri))

    def _call(self, operation: str, uri: str, action: Any, target: str | None = None) -> Any:
        """Run `action`; a Java failure becomes one StorageError sentence naming the operation and path."""
        try:
            return action()
        except self._java_errors as err:
            raise self._storage_error(operation, uri, err, target) from None
        except self._gone_errors:
            raise StorageError(
                f"Cannot {operation} {normalize_uri(uri)}: the Spark JVM does not answer (the session ended?)."
            ) from None

    @staticmethod
    def _storage_error(operation: str, uri: str, err: BaseException, target: str | None) -> StorageError:
        name, message = java_class_name(err), java_message(err)
        if operation == "create the directory" and name.endswith("FileAlreadyExistsException"):
            reason = "a file is in the way"
        elif operation == "rename" and (name.endswith("FileAlreadyExistsException")
                                        or "must both be directories" in message):
            reason = "the target exists"  # the latter: FileContext's check of a target of the other kind
        elif "Is a directory" in message:
            reason = "it is a directory"
        elif "Not a directory" in message:
            reason = "a parent is not a directory"
        elif name in _REASONS:
            reason = _REASONS[name]
        elif "is not empty" in message:
            reason = "the directory is not empty"
        elif "Relative path in absolute URI" in message:
            reason = "a name in it holds a ':', which Hadoop paths cannot"
        else:
            first = message.strip().splitlines()[0].strip().rstrip(".") if message.strip() else ""
            short = name.rsplit(".", 1)[-1] if name else "a Java error"
            reason = f"{short}: {first}" if first else short
        where = normalize_uri(uri) if target is None else f"{normalize_uri(uri)} to {normalize_uri(target)}"
        return StorageError(f"Cannot {operation} {where}: {reason}.")

    def _statuses(self, array: Any) -> list[FileStatus]:
        """A Java FileStatus[] as records, read by their getters in the JVM (`jvm/TreeLister.java`): one call."""
        if array is None:
            return []
        return _decoded(str(self._tree_lister().statuses(array)))

    def _local_links(self, paths: Sequence[str]) -> set[str]:
        """Which of these paths are symbolic links on `file://` (java.nio, one call; see the module's docstring)."""
        local = [path for path in paths if path.startswith("file:///")]
        if not local:
            return set()
        lister = self._tree_lister()
        answer = str(self._call("look up", local[0], lambda: lister.links(_SEPARATOR.join(local))))
        return set(answer.split(_SEPARATOR)) - {""}

    def _marking_links(self, statuses: list[FileStatus], links: set[str]) -> list[FileStatus]:
        return [FileStatus(status.path, 0, status.modification_time, False, is_link=True)
                if status.path in links else status for status in statuses]

    # ----------------------------------------------------------------- queries
    def exists(self, path: str) -> bool:
        fs, lister = self._fs(path), self._tree_lister()
        return bool(self._call("look up", path, lambda: lister.exists(fs, path)))

    def status(self, path: str) -> FileStatus | None:
        fs, lister = self._fs(path), self._tree_lister()
        answer = str(self._call("look up", path, lambda: lister.lookUp(fs, path)))
        return _decoded(answer)[0] if answer else None

    def list(self, path: str) -> list[FileStatus]:
        fs, lister = self._fs(path), self._tree_lister()
        answer = str(self._call("list", path, lambda: lister.listing(fs, path)))
        if answer == "L":
            raise StorageError(f"Cannot list {normalize_uri(path)}: it is a symbolic link, which the toolkit never "
                               "follows.")
        if answer == "F":
            raise StorageError(f"Cannot list {normalize_uri(path)}: it is not a directory.")
        return sorted(_decoded(answer[1:]))

    def list_many(self, paths: Sequence[str]) -> dict[str, builtins.list[FileStatus]]:
        """The children of many directories in about five JVM calls per file system (`listStatus(Path[])`),
        by the paths as given; a path that is gone or not a directory maps to [] (as in the interface).

        Entries are sorted per directory. When the batch cannot be answered at once (a path is gone, or a
        path is spelled otherwise than Hadoop spells its children), every path is listed on its own.
        """
        listed: dict[str, list[FileStatus]] = {}
        groups: dict[tuple[str, str], list[str]] = {}
        for path in paths:
            groups.setdefault(_scheme_and_authority(path), []).append(path)
        for group in groups.values():
            # A large batch goes as a few slices in parallel: the JVM lists while Python decodes.
            size = max(_PARALLEL_SLICE, -(-len(group) // LISTING_THREADS))
            slices = [group[start:start + size] for start in range(0, len(group), size)]
            if len(slices) == 1:
                listed.update(self._list_slice(group))
                continue
            with ThreadPoolExecutor(max_workers=LISTING_THREADS) as pool:
                for part in pool.map(self._list_slice, slices):
                    listed.update(part)
        return {path: listed[path] for path in paths}

    def _list_slice(self, group: builtins.list[str]) -> dict[str, builtins.list[FileStatus]]:
        batch = self._list_batch(group)
        return batch if batch is not None else FileSystem.list_many(self, group)

    def _list_batch(self, group: builtins.list[str]) -> dict[str, builtins.list[FileStatus]] | None:
        spelled = {normalize_uri(path) for path in group}
        if len(spelled) < 2:
            return None
        fs = self._fs(group[0])
        try:
            names = self._split_on_separator(_SEPARATOR.join(sorted(spelled)))
            array = fs.listStatus(self._string_to_path(names))
            entries = self._statuses(array)
        except self._java_errors:
            return None  # a path is gone (or not listable): list one by one
        links = self._local_links([*spelled, *(entry.path for entry in entries)])
        entries = self._marking_links(entries, links)
        children: dict[str, list[FileStatus]] = {path: [] for path in spelled}
        listed_itself: set[str] = set()
        for entry in entries:
            if not entry.is_dir and entry.path in spelled and entry.path not in listed_itself:
                listed_itself.add(entry.path)  # listStatus of a file answers the file: it has no children
                continue
            bucket = children.get(parent_of(entry.path))
            if bucket is None:
                return None
            bucket.append(entry)
        return {path: [] if normalize_uri(path) in links else sorted(children[normalize_uri(path)]) for path in group}

    def _small_files(self) -> Any:
        from toolkit.core.storage.jvm_classes import java_class, new_instance

        with self._lock:
            if self._small_file_reader is None:
                gateway = self._spark.sparkContext._gateway
                self._small_file_reader = new_instance(gateway, java_class(gateway, self._conf, "SmallFiles"))
        return self._small_file_reader

    def _tree_lister(self) -> Any:
        from toolkit.core.storage.jvm_classes import java_class, new_instance

        by_nio = "file" in self._nio_schemes
        with self._lock:
            lister = self._tree_listers.get(by_nio)
            if lister is None:
                gateway = self._spark.sparkContext._gateway
                lister = self._tree_listers[by_nio] = new_instance(
                    gateway, java_class(gateway, self._conf, "TreeLister"), self._conf, by_nio)
        return lister

    def same_files(self, source: str, target: str, ignored_top: Sequence[str] = (),
                   ignored_prefixes: Sequence[str] = (), ignored_suffixes: Sequence[str] = ()) -> int | None:
        """Both trees walked and compared in the JVM at once: one call, a number back."""
        lister = self._tree_lister()
        count = self._call("compare", source, lambda: lister.sameFiles(
            normalize_uri(source), normalize_uri(target), _SEPARATOR.join(ignored_top),
            _SEPARATOR.join(ignored_prefixes), _SEPARATOR.join(ignored_suffixes)), target)
        return int(count) if count >= 0 else None

    def tree_digest(self, root: str, flag: str | None) -> tuple[bool, TreeDigest] | None:
        """Listed and digested in the JVM (`jvm/TreeLister.java`): a few numbers cross py4j, not the tree."""
        lister = self._tree_lister()
        top = normalize_uri(root)
        answer = str(self._call("fingerprint", top, lambda: lister.digest(top, flag or "")))
        if not answer.startswith("D"):
            return None
        flagged, visible = answer[1:].split(_SEPARATOR, 1)
        digest = _tree_digest(visible)
        return None if digest is None else (flagged == "1", digest)

    def same_files_digested(self, source: str, target: str, ignored_top: Sequence[str] = (),
                            ignored_suffixes: Sequence[str] = ()) -> tuple[int, TreeDigest | None] | None:
        """Both trees walked and compared in the JVM at once, the target digested from its walk: one call."""
        lister = self._tree_lister()
        answer = str(self._call("compare", source, lambda: lister.sameFilesDigest(
            normalize_uri(source), normalize_uri(target), _SEPARATOR.join(ignored_top), "",
            _SEPARATOR.join(ignored_suffixes)), target))
        if not answer:
            return None
        count, visible = answer.split(_SEPARATOR, 1)
        return int(count), _tree_digest(visible)

    def total_sizes(self, entries: Sequence[FileStatus]) -> dict[str, int]:
        """Every folder's tree summed in the JVM (`jvm/TreeLister.java`), one call for all of them."""
        sizes = {entry.path: entry.length for entry in entries if not entry.is_dir}
        folders = [entry.path for entry in entries if entry.is_dir]
        if folders:
            lister = self._tree_lister()
            answer = str(self._call("size", folders[0], lambda: lister.sizes(_SEPARATOR.join(folders))))
            sums = answer.split(_SEPARATOR)[:-1]  # each ends with the separator
            sizes.update((folder, max(0, int(size))) for folder, size in zip(folders, sums, strict=True))
        return sizes

    def list_files(self, root: str) -> builtins.list[FileStatus]:
        """The whole tree in one JVM call (`jvm/TreeLister.java`), answered as one string."""
        lister = self._tree_lister()
        top = normalize_uri(root)
        answer = str(self._call("list", top, lambda: lister.list(top)))
        if answer == "F":
            raise StorageError(f"{top} is a file where a directory belongs.")
        if answer == "L":
            raise StorageError(f"{top} is a symbolic link where a directory belongs: the toolkit never follows one.")
        fields = answer[1:].split("\0")
        prefix = top.rstrip("/") + "/"
        return [FileStatus(prefix + fields[k], int(fields[k + 1]), int(fields[k + 2]), False, fields[k + 3] == "l")
                for k in range(0, len(fields) - 1, 4)]

    def glob(self, pattern: str) -> builtins.list[FileStatus]:
        fs = self._fs(pattern)
        target = self._path(pattern)
        found = self._call("glob", pattern, lambda: self._statuses(fs.globStatus(target)))
        return sorted(self._marking_links(found, self._local_links([status.path for status in found])))

    def read(self, path: str) -> bytes:
        fs = self._fs(path)
        return bytes(self._call("read", path, lambda: self._small_files().read(fs, path)))

    def read_if_exists(self, path: str) -> bytes | None:
        """One call, which answers a missing file without a Java exception (`jvm/SmallFiles`)."""
        fs = self._fs(path)
        found = self._call("read", path, lambda: self._small_files().readIfExists(fs, path))
        return None if found is None else bytes(found)

    def keeps_checksums(self, path: str) -> bool:
        """Every scheme but `file` may (the raw local file system keeps none)."""
        return _scheme_and_authority(path)[0] != "file"

    def checksum(self, path: str) -> str | None:
        """`algorithm:hexbytes` of `getFileChecksum` (HDFS: MD5-of-MD5-of-CRC32C); None where the file
        system keeps none (the local one); StorageError when the path is not a file."""
        fs = self._fs(path)
        target = self._path(path)
        found = self._call("checksum", path, lambda: fs.getFileChecksum(target))
        if found is None:
            if not self._call("checksum", path, lambda: fs.isFile(target)):
                raise StorageError(f"Cannot checksum {normalize_uri(path)}: it is not a file.")
            return None
        return self._call("checksum", path, lambda: format_checksum(found))

    # ----------------------------------------------------------------- changes
    def _local(self, uri: str) -> Any:
        """The java.nio Path of a `file://` URI (after the same checks as every other operation)."""
        self._fs(uri)
        return self._call("use", uri, lambda: self._paths_get(to_local_path(uri), self._no_strings))

    def _nio(self, uri: str) -> bool:
        return _scheme_and_authority(uri)[0] in self._nio_schemes

    def mkdirs(self, path: str) -> None:
        if self._nio(path):
            folder = self._local(path)
            self._call("create the directory", path, lambda: self._files.createDirectories(folder,
                                                                                            self._no_attributes))
            return
        fs = self._fs(path)
        if not self._call("create the directory", path, lambda: fs.mkdirs(self._path(path))):
            raise StorageError(f"Cannot create the directory {normalize_uri(path)}: the file system refused it.")

    def write_atomically(self, path: str, data: bytes) -> None:
        spelled = normalize_uri(path)
        folder = parent_of(spelled)
        temporary_name = hidden_sibling(spelled.rsplit("/", 1)[-1], f".{secrets.token_hex(8)}.tmp")
        temporary_uri = f"{folder.rstrip('/')}/{temporary_name}"
        if self._nio(path):
            self._write_local_atomically(path, folder, temporary_uri, data)
            return
        fs = self._fs(path)
        target, temporary = self._path(path), self._path(temporary_uri)
        if self._call("write", path, lambda: fs.isDirectory(target)):
            raise StorageError(f"Cannot write {spelled}: it is a directory.")
        self.mkdirs(folder)

        def write_then_rename() -> None:
            stream = fs.create(temporary, False)
            try:
                stream.write(bytearray(data))
            finally:
                stream.close()
            self._context(path).rename(temporary, target, self._overwrite)

        try:
            self._call("write", path, write_then_rename)
        except BaseException:
            self._forget(lambda: fs.delete(temporary, False))
            raise

    def _write_local_atomically(self, path: str, folder: str, temporary_uri: str, data: bytes) -> None:
        target, temporary = self._local(path), self._local(temporary_uri)
        self.mkdirs(folder)

        def write_then_move() -> None:
            self._files.write(temporary, bytearray(data), self._create_new)
            self._files.move(temporary, target, self._atomic_move)  # rename(2): replaces a file atomically

        try:
            self._call("write", path, write_then_move)
        except BaseException:
            self._forget(lambda: self._files.deleteIfExists(temporary))
            raise

    def _forget(self, cleanup: Any) -> None:
        """Best-effort cleanup while another error is on its way out."""
        try:
            cleanup()
        except (*self._java_errors, self._py4j_error):
            pass  # the error being raised says what went wrong

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if self._nio(path):
            return self._create_local_exclusive(path, data)
        fs = self._fs(path)
        target = self._path(path)
        try:
            stream = fs.create(target, False)
        except self._java_errors as err:
            if java_class_name(err).rsplit(".", 1)[-1] in ("FileAlreadyExistsException",
                                                           "AlreadyBeingCreatedException") \
                    and self._call("create", path, lambda: fs.exists(target)):
                return False
            if java_class_name(err).endswith("FileAlreadyExistsException"):  # a file where a parent belongs
                self.mkdirs(parent_of(normalize_uri(path)))  # raises, naming it
            raise self._storage_error("create", path, err, None) from None

        def write() -> None:
            try:
                stream.write(bytearray(data))
            finally:
                stream.close()

        self._call("create", path, write)
        return True

    def _create_local_exclusive(self, path: str, data: bytes) -> bool:
        target = self._local(path)
        self.mkdirs(parent_of(normalize_uri(path)))
        try:
            self._files.write(target, bytearray(data), self._create_new)  # open(O_CREAT | O_EXCL)
        except self._java_errors as err:
            if java_class_name(err) == "java.nio.file.FileAlreadyExistsException":
                return False
            raise self._storage_error("create", path, err, None) from None
        return True

    def rename(self, source: str, target: str) -> None:
        spelled_source, spelled_target = normalize_uri(source), normalize_uri(target)
        if self._nio(source) and self._nio(target):
            self._local(source), self._local(target)  # the same checks as every other operation
            try:
                os.makedirs(os.path.dirname(to_local_path(target)), exist_ok=True)
                rename_no_replace(to_local_path(source), to_local_path(target))
            except FileExistsError:
                raise StorageError(f"Cannot rename {spelled_source} to {spelled_target}: the target exists.") \
                    from None
            except OSError as err:
                raise StorageError(f"Cannot rename {spelled_source} to {spelled_target}: {err.strerror}.") from None
            return
        self._fs(source)
        self._fs(target)
        old, new = self._path(source), self._path(target)
        self.mkdirs(parent_of(spelled_target))
        context = self._context(source)
        self._call("rename", source, lambda: context.rename(old, new, self._no_replace), target)

    def _delete(self, path: str, *, recursive: bool) -> bool:
        """Hadoop's delete removes a link itself (`FileUtil.fullyDelete` deletes a link before looking into it);
        a local link without `recursive` goes through java.nio, which deletes the link and never looks through it
        (RawLocalFileSystem refuses a link to a non-empty folder as a non-empty folder)."""
        fs = self._fs(path)
        target = self._path(path)
        if not recursive and path in self._local_links([path]):
            local = self._local(path)
            return bool(self._call("delete", path, lambda: self._files.deleteIfExists(local)))
        if self._call("delete", path, lambda: fs.delete(target, recursive)):
            return True
        if self._call("delete", path, lambda: fs.exists(target)):
            raise StorageError(f"Cannot delete {normalize_uri(path)}: the file system could not delete all of it.")
        return False

    def copy(self, source: str, target: str) -> None:
        """Inside the JVM, across file systems too: `FileUtil.copy`, or from `file://` to `file://`
        commons-io's `FileUtils` (mtimes kept, as local.py's copy does). The target must not exist; a failed
        copy can leave part of it behind."""
        source_fs, target_fs = self._fs(source), self._fs(target)
        old, new = self._path(source), self._path(target)
        if self._call("copy", source, lambda: target_fs.exists(new), target):
            raise StorageError(f"Cannot copy {normalize_uri(source)} to {normalize_uri(target)}: the target exists.")
        self.refuse_links(source, target)
        if self._local_copies is not None and self._nio(source) and self._nio(target):
            file_class, utilities = self._local_copies
            local_source, local_target = file_class(to_local_path(source)), file_class(to_local_path(target))

            def copy_locally() -> None:
                if not local_source.exists():
                    raise StorageError(f"Cannot copy {normalize_uri(source)} to {normalize_uri(target)}: "
                                       f"no such file or directory.")
                if local_source.isDirectory():
                    utilities.copyDirectory(local_source, local_target)
                else:
                    utilities.copyFile(local_source, local_target)

            self._call("copy", source, copy_locally, target)
            return
        copied = self._call("copy", source, lambda: self._file_util_copy(source_fs, old, target_fs, new, False,
                                                                          self._conf), target)
        if not copied:
            raise StorageError(f"Cannot copy {normalize_uri(source)} to {normalize_uri(target)}: the copy failed.")


    def copy_files(self, tasks: Sequence[CopyTask], threads: int = 4,
                   preserve_permission: bool = True) -> builtins.list[CopyResult]:
        """In the JVM, a batch per call (`bulk_copy.BulkCopier`, one per thread count)."""
        return self._copier(threads).copy(tasks, preserve_permission)

    def copy_files_on_executors(self, tasks: Sequence[CopyTask], threads: int = 4,
                                preserve_permission: bool = True) -> SpreadCopy:
        """One Spark job of twice as many tasks as the executors have cores (at most one per file), balanced by
        bytes (`bulk_copy.BulkCopier.copy_on_executors`): a fast executor takes more of them."""
        slices = 2 * max(1, int(self._spark.sparkContext.defaultParallelism))
        return self._copier(threads).copy_on_executors(tasks, slices, preserve_permission)

    def _copier(self, threads: int) -> Any:
        """The bulk copier of `threads` threads, made once."""
        from toolkit.core.storage.bulk_copy import BulkCopier

        with self._lock:
            copier = self._copiers.get(threads)
            if copier is None:
                copier = self._copiers[threads] = BulkCopier(self._spark, threads)
        return copier


def format_checksum(checksum: Any) -> str:
    """A Java `FileChecksum` as `algorithm:hexbytes`."""
    return f"{checksum.getAlgorithmName()}:{bytes(checksum.getBytes()).hex()}"


def _tree_digest(answer: str) -> TreeDigest | None:
    """TreeLister's digest of visible files ("K": a symbolic link or a left-out visible name made it none)."""
    if answer == "K":
        return None
    digest, files, size = answer.split(_SEPARATOR)
    return TreeDigest(digest, int(files), int(size))


def _decoded(answer: str) -> list[FileStatus]:
    """TreeLister's statuses (path, kind, length, mtime per status, each field NUL-ended) as records."""
    fields = answer.split(_SEPARATOR)
    statuses = []
    for k in range(0, len(fields) - 1, 4):
        path, kind, length, mtime = normalize_uri(fields[k]), fields[k + 1], int(fields[k + 2]), int(fields[k + 3])
        statuses.append(FileStatus(path, 0, mtime, False, is_link=True) if kind == "l"
                        else FileStatus(path, length, mtime, kind == "d"))
    return statuses
