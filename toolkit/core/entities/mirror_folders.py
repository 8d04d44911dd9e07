"""The folders a mirror reads and writes on its clusters, and what makes one usable: pure path work in one place for
the linter (MR001 to MR003) and the mirror's run, so that what lints clean is what runs.

A mirror owns its target folder: it may write and (with `removeDeletedFiles`) delete anything under it, so the
target must be a fixed absolute folder that is neither the root nor at, inside or around a folder another entity
writes. Folders are under each cluster's root (its write endpoint); two clusters with one root are one file system.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from functools import singledispatch
from posixpath import basename

from toolkit.core.entities.document import FieldPath, format_path
from toolkit.core.entities.ingest_folders import folders_of, relation
from toolkit.core.entities.model import HdfsMirrorSpec, HiveMirrorSpec, Mirror, MirrorSpec, SnapshotMirrorSpec
from toolkit.core.entities.repo import ConfigRepo
from toolkit.uris import has_dot_segment, normalize_uri


class Side(str, Enum):
    """Which cluster a folder is on: the one copied from or the one copied to."""

    SOURCE = "source"
    TARGET = "target"


@dataclass(frozen=True)
class MirrorFolder:
    """A folder a mirror names: its YAML `field` (a path), the `side` it is on, and the text as written."""

    field: FieldPath
    side: Side
    value: str

    @property
    def path(self) -> str:
        """One spelling of the folder (no trailing slash) for comparisons."""
        return normalize_uri(self.value)

    @property
    def named(self) -> str:
        """How a sentence names it: `targetDir '/backup/sales'`."""
        return f"{format_path(self.field)} {self.value!r}"


def mirror_folders(mirror: Mirror) -> tuple[MirrorFolder, ...]:
    """Every folder of the mirror, sources first."""
    return tuple(_folders(mirror.spec))


@singledispatch
def _folders(spec: MirrorSpec) -> Iterator[MirrorFolder]:
    raise TypeError(f"no folders for {type(spec).__name__}")


@_folders.register
def _(spec: HdfsMirrorSpec) -> Iterator[MirrorFolder]:
    for index, value in enumerate(spec.source_dir):
        yield MirrorFolder(("sourceDir", index), Side.SOURCE, value)
    yield MirrorFolder(("targetDir",), Side.TARGET, spec.target_dir)


@_folders.register
def _(spec: SnapshotMirrorSpec) -> Iterator[MirrorFolder]:
    yield MirrorFolder(("sourceSnapshotDir",), Side.SOURCE, spec.source_snapshot_dir)
    yield MirrorFolder(("targetSnapshotDir",), Side.TARGET, spec.target_snapshot_dir)


@_folders.register
def _(spec: HiveMirrorSpec) -> Iterator[MirrorFolder]:
    if spec.source_staging_path is not None:
        yield MirrorFolder(("sourceStagingPath",), Side.SOURCE, spec.source_staging_path)
    if spec.target_staging_path is not None:
        yield MirrorFolder(("targetStagingPath",), Side.TARGET, spec.target_staging_path)


def folder_problem(value: str) -> str | None:
    """Why `value` is no fixed absolute folder under a cluster root (None when it is one), as the end of a sentence
    that starts with the folder's name."""
    if not value.startswith("/"):
        return "is not an absolute path: give a folder under the cluster root that starts with /"
    if any(ord(char) < 32 or ord(char) == 127 for char in value):
        return "holds a control character: give the folder without it"
    if has_dot_segment(value) or "//" in value:
        return "has a '.' or '..' segment or a doubled slash: spell the folder once"
    if "${" in value:
        return "has a ${...} variable, but a mirror copies fixed folders: give the folder itself"
    if normalize_uri(value) == "/":
        return "is the cluster root: give a folder of its own, such as /mirrors/<name>"
    return None


def copied_name(source: str) -> str:
    """The name a source folder of an hdfs mirror is copied under, inside its targetDir."""
    return basename(normalize_uri(source))


def cluster_of(mirror: Mirror, side: Side) -> str:
    """The cluster a folder of `side` is on."""
    return mirror.source_cluster if side is Side.SOURCE else mirror.target_cluster


def same_file_system(repo: ConfigRepo, first: str, second: str) -> bool:
    """Whether two clusters are one file system: the same cluster, or two whose write endpoints are one root."""
    if first == second:
        return True
    one, other = repo.clusters.get(first), repo.clusters.get(second)
    roots = (None if one is None else one.write_endpoint, None if other is None else other.write_endpoint)
    return roots[0] is not None and roots[0] == roots[1]


@dataclass(frozen=True)
class Meeting:
    """A target folder of a mirror that is, lies inside or holds (`how`) a folder someone else writes (`theirs`,
    described as a sentence names it)."""

    mine: MirrorFolder
    how: str
    theirs: str


def target_meetings(repo: ConfigRepo, mirror: Mirror) -> Iterator[Meeting]:
    """The mirror's usable target folders against the folders of the feeds and the other mirrors' targets on the
    same file system: what the mirror would overwrite or delete there, or what would write into its copy."""
    mine = [folder for folder in mirror_folders(mirror)
            if folder.side is Side.TARGET and folder_problem(folder.value) is None]
    if not mine:
        return
    for theirs, described in _written_folders(repo, mirror):
        for folder in mine:
            how = relation(folder.path, theirs)
            if how is not None:
                yield Meeting(folder, how, described)


def _written_folders(repo: ConfigRepo, mirror: Mirror) -> Iterator[tuple[str, str]]:
    """(path, description) of what the feeds and the other mirrors write on the mirror's target file system."""
    target = mirror.target_cluster
    for feed in repo.feeds.values():
        for cluster in feed.clusters:
            if same_file_system(repo, cluster.name, target):
                for owned in folders_of(feed, feed.locations_on(cluster.name), feed.table_on(cluster.name)):
                    yield owned.path, f"{owned.described} on cluster '{cluster.name}'"
    for other in repo.mirrors.values():
        if other.name != mirror.name and same_file_system(repo, other.target_cluster, target):
            for folder in mirror_folders(other):
                if folder.side is Side.TARGET and folder_problem(folder.value) is None:
                    yield folder.path, f"{folder.named} of mirror '{other.name}' on cluster '{other.target_cluster}'"
