"""The file-system interface every action uses, and the records it returns.

Paths are full URIs (`file:///var/data/primary/data/clicks/2026/11/21/10`, `hdfs://nn:8020/...`). Two
implementations pass the same contract tests: `hadoop.HadoopFileSystem` (any scheme the cluster's
Hadoop configuration knows, through the active SparkSession's JVM) and `local.LocalFileSystem` (pure
Python, `file://` only, for the CLI and tests where no Spark session exists).
"""

from __future__ import annotations

import builtins
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolkit.errors import ToolkitError
from toolkit.uris import has_dot_segment, is_below, is_root, join_under, normalize_uri, path_below


class StorageError(ToolkitError):
    """A file-system operation failed (exit 1): the message names the path and the operation."""


@dataclass(frozen=True, order=True)
class FileStatus:
    """One entry of a listing: its full URI, size in bytes, modification time (ms since the epoch).

    A symbolic link is an entry of its own (`is_link`, neither a directory nor a file, length 0): walks never
    follow it, deletes remove the link and never its target, copies refuse it. The toolkit treats it as a
    foreign entry, as it does a name that is no instance."""

    path: str
    length: int
    modification_time: int
    is_dir: bool
    is_link: bool = False

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class TreeDigest:
    """A tree's visible files reduced where they are listed, in one call (`FileSystem.tree_digest`): the digest,
    count and bytes that toolkit/core/instances/fingerprints.py makes of them."""

    digest: str
    files: int
    bytes: int


@dataclass(frozen=True)
class CopyTask:
    """One file to copy; `length` and `modification_time` are the source's as listed (the copy is checked
    against the length and given that mtime, so a later run can tell it is unchanged)."""

    source: str
    target: str
    length: int
    modification_time: int


@dataclass(frozen=True)
class CopyResult:
    """A copied file: bytes copied and their CRC32C (8 hex digits; '' where the copier computes none), or the
    error (one line) that stopped it."""

    task: CopyTask
    bytes: int = 0
    crc32c: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class CopySlice:
    """One Spark task of a copy spread over the executors: where it ran, what it copied, how long it took."""

    executor: str
    host: str
    files: int
    bytes: int
    seconds: float
    attempt: int  # 0 unless Spark retried the task


@dataclass(frozen=True)
class SpreadCopy:
    """A copy run as a Spark job: every file's outcome in the tasks' order, and the job's tasks."""

    results: builtins.list[CopyResult]
    slices: tuple[CopySlice, ...]


def each_listed(paths: Sequence[str], list_one: Callable[[str], list[FileStatus]]) -> dict[str, list[FileStatus]]:
    """`list_one` of each path, by the paths as given; [] for a path it refuses (gone, or not a directory)."""
    listed: dict[str, list[FileStatus]] = {}
    for path in paths:
        try:
            listed[path] = list_one(path)
        except StorageError:
            listed[path] = []
    return listed


def _inside_any(path: str, folders: set[str]) -> bool:
    """Whether a folder above `path` (each prefix of it that ends before a `/`) is one of `folders`."""
    return any(path[i] == "/" and path[:i] in folders for i in range(len(path) - 1, 0, -1))


class FileSystem(ABC):
    """Operations on one file system; every path is a full URI, refused when it has a `.` or `..` segment."""

    _protected: frozenset[str] = frozenset()
    # its reads may run in forked copies of this process (toolkit/forked_map.py): no connection, client or JVM that a
    # fork would share with its parent
    shared_with_forks = False

    @abstractmethod
    def exists(self, path: str) -> bool: ...

    @abstractmethod
    def status(self, path: str) -> FileStatus | None:
        """The path's status, or None when it does not exist."""

    @abstractmethod
    def list(self, path: str) -> list[FileStatus]:
        """The direct children of a directory, sorted by path; StorageError when it is not a directory."""

    def list_many(self, paths: Sequence[str]) -> dict[str, builtins.list[FileStatus]]:
        """The children of many directories at once (a path that is gone or not a directory maps to []).

        Walks call this once per level: an implementation whose calls are expensive (the JVM through
        py4j) answers the whole batch in one round trip.
        """
        return each_listed(paths, self.list)

    def list_kinds_many(self, paths: Sequence[str]) -> dict[str, builtins.list[FileStatus]]:
        """As `list_many`, for a walk that reads only names, kinds and files' lengths: the modification times may be
        0. A local file system then reads a directory's or a link's kind from the listing, with no status call."""
        return self.list_many(paths)

    def total_sizes(self, entries: Sequence[FileStatus]) -> dict[str, int]:
        """Bytes under each entry (a file's length, or the sum of a tree's files), by path; one batch per
        depth. Entries come from a listing, so nothing is looked up twice."""
        sizes = {entry.path: 0 if entry.is_dir else entry.length for entry in entries}
        folders = {entry.path for entry in entries if entry.is_dir}
        # Walked from the entries no other entry holds; a folder inside another counts its files for both.
        owners: dict[str, tuple[str, ...]] = {path: (path,) for path in folders if not _inside_any(path, folders)}
        frontier = list(owners)
        while frontier:
            following: list[str] = []
            for folder, children in self.list_many(frontier).items():
                for child in children:
                    if child.is_dir:
                        owners[child.path] = (*owners[folder], child.path) if child.path in folders \
                            else owners[folder]
                        following.append(child.path)
                    else:
                        for owner in owners[folder]:
                            sizes[owner] += child.length
            frontier = following
        return sizes

    def tree_digest(self, root: str, flag: str | None) -> tuple[bool, TreeDigest] | None:
        """Whether `flag` is a file at the top of the directory `root`, and the digest of its visible files, computed
        where the files are listed, in one call; None when this file system does not (here), when `root` is not a
        directory, or when a symbolic link is among its visible files: then the caller lists the tree and
        fingerprints it (fingerprints.py)."""
        return None

    def same_files_digested(self, source: str, target: str, ignored_top: Sequence[str] = (),
                            ignored_suffixes: Sequence[str] = ()) -> tuple[int, TreeDigest | None] | None:
        """`same_files`, with the digest of the target's visible files when the trees are the same and the file system
        made it in the same walk (else None beside the count)."""
        count = self.same_files(source, target, ignored_top, ignored_suffixes=ignored_suffixes)
        return None if count is None else (count, None)

    def list_files(self, root: str) -> builtins.list[FileStatus]:
        """Every file below the directory `root` (not its folders), in no particular order, and every symbolic
        link (`is_link`, not followed); [] when `root` does not exist, StorageError when it is a file. Here one
        `list_many` batch per depth; implementations whose calls are expensive list the whole tree in one call."""
        status = self.status(root)
        if status is None:
            return []
        if not status.is_dir:
            raise StorageError(f"{normalize_uri(root)} is a file where a directory belongs.")
        found: list[FileStatus] = []
        frontier = [normalize_uri(root)]
        while frontier:
            following = []
            for children in self.list_many(frontier).values():
                for child in children:
                    if child.is_dir:
                        following.append(child.path)
                    else:
                        found.append(child)
            frontier = following
        return found

    def same_files(self, source: str, target: str, ignored_top: Sequence[str] = (),
                   ignored_prefixes: Sequence[str] = (), ignored_suffixes: Sequence[str] = ()) -> int | None:
        """How many files `source` holds when `target` holds exactly the same (relative paths, lengths and
        modification times), else None (also when either is missing). Names in `ignored_top` at the top of
        either tree, and files with a name (their own or a folder's) starting with one of `ignored_prefixes`
        or ending with one of `ignored_suffixes`, are left out, and so are symbolic links. The fast path of a
        rerun that finds nothing changed."""
        prefixes, suffixes = tuple(ignored_prefixes), tuple(ignored_suffixes)
        trees = []
        for root in (source, target):
            found = self.status(root)
            if found is None or not found.is_dir:
                return None
            prefix = normalize_uri(root).rstrip("/") + "/"
            tree = {}
            for status in self.list_files(root):
                if status.is_link:
                    continue
                relative = normalize_uri(status.path)[len(prefix):]
                if relative in ignored_top or ((prefixes or suffixes) and any(
                        (prefixes and name.startswith(prefixes)) or (suffixes and name.endswith(suffixes))
                        for name in relative.split("/"))):
                    continue
                tree[relative] = (status.length, status.modification_time)
            trees.append(tree)
        return len(trees[0]) if trees[0] == trees[1] else None

    @abstractmethod
    def glob(self, pattern: str) -> builtins.list[FileStatus]:
        """Paths matching a Hadoop glob (`*`, `?`, `[ab]`, `{x,y}`), sorted; [] when none match."""

    @abstractmethod
    def mkdirs(self, path: str) -> None: ...

    def read_start(self, path: str, size: int) -> bytes | None:
        """At least the first `size` bytes of a file (all of it when it is shorter), or None when there is none: what
        a reader of a file's head alone takes. This default reads the whole file; a file system that can read a
        part of one reads that part."""
        return self.read_if_exists(path)

    @abstractmethod
    def write_atomically(self, path: str, data: bytes) -> None:
        """Write a small file under a temporary name beside it, then rename it into place (parents created)."""

    @abstractmethod
    def create_exclusive(self, path: str, data: bytes) -> bool:
        """Create a new file; False (nothing written) when it exists already. Locks are built on this."""

    @abstractmethod
    def read(self, path: str) -> bytes:
        """The whole content of a small file."""

    def read_if_exists(self, path: str) -> bytes | None:
        """`read`, or None when the file does not exist (a read that fails for another reason raises; a file
        created right after the first read failed is read: records appear whole, by a rename)."""
        try:
            return self.read(path)
        except StorageError:
            if self.exists(path):
                return self.read(path)
            return None

    @abstractmethod
    def rename(self, source: str, target: str) -> None:
        """Move `source` to `target` (which must not exist); StorageError when it cannot."""

    def first_link_below(self, root: str, path: str) -> str | None:
        """The first symbolic link on the way from `root` (not included: the cluster's root is the operator's)
        down to `path` (included), or None; the way stops where nothing exists yet. A path through a link is
        somewhere else than its name says, outside the root perhaps. StorageError when `path` is not under `root`."""
        relative = path_below(root, path)
        if relative is None:
            raise StorageError(f"Cannot use {normalize_uri(path)}: it is not under the cluster root "
                               f"{normalize_uri(root)}.")
        names = relative.strip("/").split("/") if relative != "/" else []
        for depth in range(1, len(names) + 1):
            current = join_under(root, "/".join(names[:depth]))
            found = self.status(current)
            if found is None:
                return None
            if found.is_link:
                return current
        return None

    def refuse_links_below(self, root: str, path: str) -> None:
        """A StorageError naming the first symbolic link on the way from `root` down to `path` (first_link_below),
        before anything is written or moved there."""
        link = self.first_link_below(root, path)
        if link is not None:
            raise StorageError(f"Cannot write {normalize_uri(path)}: {link}, on its way from the cluster root, is a "
                               "symbolic link, which the toolkit never follows (it may lead outside the root); put "
                               "a folder in its place or give the feed another location.")

    def protect(self, root: str) -> None:
        """Refuse from now on to delete `root` (a cluster's root) or any folder above it."""
        self._protected = self._protected | {plain_uri(root)}

    def delete(self, path: str, *, recursive: bool) -> bool:
        """Delete a file, a symbolic link (never its target) or, when `recursive`, a directory tree (links in
        it are removed, never followed); False when there was nothing to delete. The file system's root, a
        protected root and every folder above one are refused with a StorageError."""
        return self._delete(self._deletable(path), recursive=recursive)

    def delete_sized(self, path: str, entries: Sequence[FileStatus]) -> dict[str, int]:
        """`delete(path, recursive=True)`, answering what `total_sizes(entries)` answered just before (`entries`
        are in the tree `path`, or are it): the bytes of what went. A file system that can measure the files as it
        removes them does both in one walk."""
        sizes = self.total_sizes(entries)
        self.delete(path, recursive=True)
        return sizes

    def _deletable(self, path: str) -> str:
        """`path` in one spelling once it is known to be no root: the file system's root, a protected root and
        every folder above one are refused with a StorageError."""
        spelled = plain_uri(path)
        if is_root(spelled):
            raise StorageError(f"Cannot delete {spelled}: it is the root of its file system, which the toolkit "
                               "refuses to delete.")
        for root in sorted(self._protected):
            if spelled == root or is_below(root, spelled):
                raise StorageError(f"Cannot delete {spelled}: it is or holds the cluster root {root}, which the "
                                   "toolkit refuses to delete.")
        return spelled

    @abstractmethod
    def _delete(self, path: str, *, recursive: bool) -> bool:
        """`delete` once the path is known not to be a root."""

    @abstractmethod
    def copy(self, source: str, target: str) -> None:
        """Copy a file or a directory tree; bytes never pass through Python where the FS can avoid it. A source
        that is or holds a symbolic link is refused (`refuse_links`): no copier here could keep it a link."""

    def refuse_links(self, source: str, target: str) -> None:
        """A StorageError naming the first symbolic link `source` is or holds (one walk of its tree)."""
        found = self.status(source)
        if found is None or not (found.is_link or found.is_dir):
            return
        links = [found.path] if found.is_link else sorted(
            status.path for status in self.list_files(source) if status.is_link)
        if links:
            raise StorageError(f"Cannot copy {normalize_uri(source)} to {normalize_uri(target)}: {links[0]} is a "
                               "symbolic link, which the toolkit never copies as its target.")

    @abstractmethod
    def copy_files(self, tasks: Sequence[CopyTask], threads: int = 4,
                   preserve_permission: bool = True) -> builtins.list[CopyResult]:
        """Copy many files (to any file system this one reaches), `threads` at a time, each checked against
        its listed length and then given the source's mtime; targets are overwritten, parents created. A
        failure is reported in its result and the others go on. Bytes stay out of Python where they can."""

    def copy_files_on_executors(self, tasks: Sequence[CopyTask], threads: int = 4,
                                preserve_permission: bool = True) -> SpreadCopy | None:
        """`copy_files` as a Spark job over the executors (each task copying a share of the bytes with `threads`
        files at a time); None where this file system has no executors to spread over (the caller copies here)."""
        return None

    def keeps_checksums(self, path: str) -> bool:
        """Whether the file system under `path` keeps file checksums that `checksum` answers (HDFS does)."""
        return False

    @abstractmethod
    def checksum(self, path: str) -> str | None:
        """The file system's own checksum of a file (algorithm and hex digest), or None when it has none."""


NAME_BYTES = 255  # bytes of one name on ext4, XFS and HDFS (dfs.namenode.fs-limits.max-component-length)


def hidden_sibling(name: str, suffix: str) -> str:
    """`.<name><suffix>`: the name of a hidden entry beside `name` (a staging folder, a temporary file). Why not
    always that: a name near the 255-byte limit would make it too long to create, so such a name is cut (at a
    character's boundary) and a digest of the whole name keeps it unique and the same on every run."""
    spelled = f".{name}{suffix}"
    if len(spelled.encode()) <= NAME_BYTES:
        return spelled
    digest = "~" + hashlib.sha256(name.encode()).hexdigest()[:16]
    room = NAME_BYTES - len(f".{digest}{suffix}".encode())
    return f".{name.encode()[:room].decode(errors='ignore')}{digest}{suffix}"


def plain_uri(uri: str) -> str:
    """`uri` in one spelling; a StorageError naming it when it has a `.` or `..` segment (see toolkit.uris)."""
    if has_dot_segment(uri):
        raise StorageError(f"Cannot use {uri}: a '.' or '..' segment in a path is refused, give the path "
                           "without them.")
    return normalize_uri(uri)


def parent_of(uri: str) -> str:
    """The parent directory's URI: `file:///a/b` -> `file:///a`, `hdfs://nn:8020/a` -> `hdfs://nn:8020/`."""
    stripped = uri.rstrip("/")
    authority = stripped.find("://")
    if authority < 0:
        return uri  # the root (`file:///`) is its own parent
    root_end = stripped.find("/", authority + 3)
    if root_end < 0:
        return stripped + "/"  # `hdfs://nn:8020/` is its own parent
    head = stripped.rpartition("/")[0]
    return stripped[: root_end + 1] if len(head) <= root_end else head
