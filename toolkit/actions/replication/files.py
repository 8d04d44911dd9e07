"""Replicate one folder of a file feed (a source's instance into its place under the target instance):
plan, copy, verify, publish.

Invariants, for a run killed at any moment:
- Data is copied into a staging folder beside the target folder (`.<name>.replicating`, hidden from
  readers and from strict template parsing) and becomes visible by one rename; a reader sees the whole
  folder or none of it. The availability flag is written after the rename.
- A file counts as present when its length and modification time equal the source's (the copier sets the
  mtime only after verifying the copy; where both file systems keep checksums of one kind, as HDFS does,
  the checksums are compared instead of the mtimes), so a rerun after a kill copies only what is missing or
  changed, and a run with nothing changed copies nothing and publishes nothing.
- A symbolic link in the source is never copied, neither as a link nor as its target: it is reported
  (`links_skipped`) and the rest is copied.
- Replacing a published folder whose source changed: the new folder is built in staging (unchanged files
  copied from the published folder, on the target file system), then swapped into place by
  core/storage/publish.py (the old one renamed aside to `.<name>.replaced`, the staging folder into place, the old
  one deleted), each rename right after the caller's `guard` (its lease check). A run killed inside the swap
  leaves the old folder aside; the next run applies the crash rule there (put back when the target is
  missing, else deleted) before anything else, then publishes its staging folder again.
- A feed's data-quality gate (`check`) reads the complete staging folder before the swap: a failing `block` gate
  deletes the staging folder and publishes nothing (a rerun copies and checks again); a `warn` gate's failure is
  published, and its results are in the outcome either way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.storage.filesystem import (
    CopyResult,
    CopySlice,
    CopyTask,
    FileSystem,
    StorageError,
    TreeDigest,
    hidden_sibling,
    normalize_uri,
    parent_of,
)
from toolkit.core.storage.publish import Guard, Publication, no_guard, recover
from toolkit.core.storage.tree import TreeFile, files_below, join, walk_below

STAGING_SUFFIX = ".replicating"
REPLACED_SUFFIX = ".replaced"

Copier = Callable[[Sequence[CopyTask]], list[CopyResult]]
Check = Callable[[str], Sequence[GateResult]]  # a staging folder's data-quality gates (target_gate.py)


@dataclass(frozen=True)
class Folder:
    """A source folder and where it goes on the target; `flag` is the availability flag's name (or None)."""

    source: str
    target: str
    flag: str | None

    @property
    def staging(self) -> str:
        return self._beside(STAGING_SUFFIX)

    @property
    def replaced(self) -> str:
        return self._beside(REPLACED_SUFFIX)

    def _beside(self, suffix: str) -> str:
        """`.<name><suffix>` beside the target; cut, with a digest, when that is longer than a name may be."""
        target = normalize_uri(self.target)
        return f"{parent_of(target).rstrip('/')}/{hidden_sibling(target.rsplit('/', 1)[-1], suffix)}"


@dataclass(frozen=True)
class FolderOutcome:
    """What replicating one folder did (Falcon's job counters)."""

    files_copied: int = 0
    files_skipped: int = 0
    bytes_copied: int = 0
    copy_seconds: float = 0.0
    published: bool = False  # False when the target was already up to date
    links_skipped: tuple[str, ...] = ()  # symbolic links in the source: not copied
    quality: tuple[GateResult, ...] = ()  # the data-quality gates the staged copy was checked against
    copier: str | None = None  # which copier copied (copier_choice.py: driver, executors); None: nothing copied
    copy_slices: tuple[CopySlice, ...] = ()  # the Spark tasks of a copy over the executors
    unchanged_target: TreeDigest | None = None  # the target's visible files when found as the source's, digested

    @property
    def blocked(self) -> bool:
        """A `block` gate failed: nothing was published, the staged copy was discarded."""
        return any(result.blocks for result in self.quality)


def available(fs: FileSystem, folder: str, flag: str | None) -> bool:
    """An instance is available when its flag file exists in it, or, for a feed without a flag, when it exists."""
    return fs.exists(join(folder, flag)) if flag else fs.exists(folder)


@dataclass(frozen=True)
class _Unchanged:
    """Whether a copy is its source's: the same length and, where both sides keep file checksums of one kind
    (HDFS to HDFS), the same checksum; elsewhere the same modification time (the copier sets it last)."""

    fs: FileSystem
    by_checksum: bool

    def __call__(self, copy: TreeFile | None, source: TreeFile) -> bool:
        if copy is None or copy.status.length != source.status.length:
            return False
        if self.by_checksum:
            return self.fs.checksum(copy.status.path) == self.fs.checksum(source.status.path)
        return copy.status.modification_time == source.status.modification_time

    @classmethod
    def probing(cls, fs: FileSystem, source: dict[str, TreeFile], *copies: dict[str, TreeFile]) -> _Unchanged:
        """Ask one file on each side for its checksum's kind (`algorithm:digest`, or None)."""
        source_file = next(iter(source.values()), None)
        copy_file = next((item for files in copies for item in files.values()), None)
        if source_file is None or copy_file is None or not fs.keeps_checksums(source_file.status.path):
            return cls(fs, False)
        kinds = [fs.checksum(item.status.path) for item in (source_file, copy_file)]
        same_kind = all(kinds) and len({kind.split(":", 1)[0] for kind in kinds if kind}) == 1
        return cls(fs, same_kind)


def _ours(name: str) -> bool:
    return name.endswith((STAGING_SUFFIX, REPLACED_SUFFIX))


def _content(fs: FileSystem, folder: str, flag: str | None) -> dict[str, TreeFile]:
    """The folder's files by relative path, without its top-level flag and without our staging folders."""
    return _by_path(files_below(fs, folder, skip=_ours), flag)


def _staged(fs: FileSystem, staging: str, wanted: Iterable[str]) -> dict[str, TreeFile]:
    """The staging folder's files, once what must not stay there is gone: a symbolic link (a copy would write
    through it, the swap would publish it; the link itself is deleted, never its target) and a folder where a
    source's file goes (left by a run over an older source; the copy cannot replace a folder)."""
    walked = walk_below(fs, staging, skip=_ours)
    for link in walked.links:
        fs.delete(link, recursive=False)
    staged = _by_path(walked.files, None)
    folders = {relative.rsplit("/", depth)[0] for relative in staged for depth in range(1, relative.count("/") + 1)}
    for path in folders.intersection(wanted):
        fs.delete(join(staging, path), recursive=True)
        staged = {relative: item for relative, item in staged.items() if not relative.startswith(path + "/")}
    return staged


def _by_path(listed: list[TreeFile], flag: str | None) -> dict[str, TreeFile]:
    return {item.relative_path: item for item in listed if item.relative_path != flag}


def replicate_folder(fs: FileSystem, copy: Copier, folder: Folder, guard: Guard = no_guard,
                     check: Check | None = None, *, recopy: bool = False) -> FolderOutcome:
    """Make `folder.target` hold exactly the source's files, atomically; the flag is the caller's to write
    (it may wait for other sources' folders). StorageError when a copy fails: nothing is published then.
    `guard` is called right before each rename of the swap (LockLostError: nothing is published). `check`
    (the feed's quality gates) reads the complete staging folder before the swap; a blocking result discards it
    and publishes nothing. With `recopy`, what a former run staged is discarded and every file is copied from the
    source, none taken from the published copy (whose length and time may hide a damage), and published whole."""
    recover(fs, folder.target, [folder.replaced])  # what a run killed inside its swap left
    if recopy:
        _drop_stale_staging(fs, folder)
    target_exists = fs.exists(folder.target)
    if target_exists and not recopy and not (fs.keeps_checksums(folder.source) and fs.keeps_checksums(folder.target)):
        same = fs.same_files_digested(folder.source, folder.target, [folder.flag] if folder.flag else [],
                                           ignored_suffixes=[STAGING_SUFFIX, REPLACED_SUFFIX])
        if same is not None:  # the rerun that finds nothing changed: two walks, no listing kept
            _drop_stale_staging(fs, folder)
            return FolderOutcome(files_skipped=same[0], unchanged_target=same[1])
    walked = walk_below(fs, folder.source, skip=_ours)
    source, links = _by_path(walked.files, folder.flag), tuple(walked.links)
    published = _content(fs, folder.target, folder.flag) if target_exists else {}
    staged = _staged(fs, folder.staging, source.keys())
    unchanged = _Unchanged.probing(fs, source, published, staged)
    if target_exists and not recopy and published.keys() == source.keys() and all(
            unchanged(published[path], item) for path, item in source.items()):
        _drop_stale_staging(fs, folder)
        return FolderOutcome(files_skipped=len(source), links_skipped=links)
    tasks = []
    for path, item in source.items():
        if unchanged(staged.get(path), item):
            continue
        origin = None if recopy else published.get(path)
        tasks.append(CopyTask(origin.status.path if origin is not None and unchanged(origin, item) else
                              item.status.path, join(folder.staging, path), item.status.length,
                              item.status.modification_time))
    for path in staged.keys() - source.keys():
        fs.delete(staged[path].status.path, recursive=False)
    fs.mkdirs(folder.staging)
    began = time.perf_counter()
    results = copy(tasks) if tasks else []
    copy_seconds = time.perf_counter() - began
    failed = [result for result in results if result.error]
    if failed:
        raise StorageError(f"{len(failed)} of {len(tasks)} file(s) of {folder.source} failed to copy to "
                           f"{folder.staging}; the first: {failed[0].task.source}: {failed[0].error}. Nothing was "
                           "published; a rerun copies only what is missing.")
    pulled = [result for result in results if not result.task.source.startswith(normalize_uri(folder.target) + "/")]
    quality = tuple(check(folder.staging)) if check is not None else ()
    blocked = any(result.blocks for result in quality)
    if blocked:
        fs.delete(folder.staging, recursive=True)  # never published; a rerun copies it again and checks it again
    else:
        if not target_exists:
            fs.mkdirs(parent_of(normalize_uri(folder.target)))
        if recopy and folder.flag and fs.exists(join(folder.target, folder.flag)):  # available before: stays so
            write_flag(fs, join(folder.source, folder.flag), join(folder.staging, folder.flag))
        with Publication(fs, guard) as publication:
            publication.swap(folder.staging, folder.target, folder.replaced)
    return FolderOutcome(files_copied=len(pulled), files_skipped=len(source) - len(pulled),
                         bytes_copied=sum(result.bytes for result in pulled), copy_seconds=copy_seconds,
                         published=not blocked, links_skipped=links, quality=quality)


def _drop_stale_staging(fs: FileSystem, folder: Folder) -> None:
    """The staging folder a killed run left beside a target that is whole: nothing of it is needed any more."""
    if fs.exists(folder.staging):
        fs.delete(folder.staging, recursive=True)


def write_flag(fs: FileSystem, source_flag: str | None, target_flag: str, guard: Guard = no_guard) -> None:
    """The target's availability flag, with the source flag's content when there is one; written last, right
    after the caller's `guard`. A folder at the flag's name is refused in one sentence (StorageError), never
    deleted: it is not the toolkit's, and an instance with it there looks available though it has no flag."""
    found = fs.status(target_flag)
    if found is not None and found.is_dir:
        raise StorageError(f"Cannot write the availability flag {normalize_uri(target_flag)}: a folder is at its name; "
                           "the instance's data is published, its flag is not: remove the folder, then run again.")
    data = fs.read(source_flag) if source_flag and fs.exists(source_flag) else b""
    with Publication(fs, guard) as publication:
        publication.write(target_flag, data)
