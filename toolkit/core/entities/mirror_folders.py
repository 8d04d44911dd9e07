"""The folders a mirror reads and writes on its clusters, and what makes one usable: pure path work in one place for
the linter (MR001 to MR003) and the mirror's run, so that what lints clean is what runs.

A mirror owns its target folder: it may write and (with `removeDeletedFiles`) delete anything under it, so the
target must be a fixed absolute folder that is neither the root nor at, inside or around a folder another entity
writes. Folders are under each cluster's root (its write endpoint); two clusters with one root are one file system.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from functools import singledispatch
from posixpath import basename

from toolkit.core.entities.document import FieldPath, format_path
from toolkit.core.entities.ingest_folders import folders_of, meeting_paths, relation
from toolkit.core.entities.model import HdfsMirrorSpec, HiveMirrorSpec, Mirror, MirrorSpec, SnapshotMirrorSpec
from toolkit.core.entities.repo import ConfigRepo
from toolkit.uris import has_dot_segment, normalize_uri, split_uri

# Control (C0, DEL, C1), format (bidirectional overrides among them) and line or paragraph separator characters.
_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


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
    if any(unicodedata.category(char) in _INVISIBLE for char in value):
        return "holds a control, format or line-separator character: give the folder without it"
    if has_dot_segment(value):
        return "has a '.' or '..' segment: give the folder it stands for, without them"
    if "//" in value:
        return "has a doubled slash: write each '/' once"
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


def written(folder: MirrorFolder) -> bool:
    """Whether the mirror writes into `folder`: its target, and the staging folders where a hive mirror's exports
    are kept (a source folder is only read)."""
    return folder.side is Side.TARGET or folder.field[0] in ("sourceStagingPath", "targetStagingPath")


def file_system(repo: ConfigRepo, cluster: str) -> str:
    """What tells a cluster's file system apart: its write endpoint in one spelling (scheme and host in lower case,
    no doubled slash), else its name (a cluster without one shares it with none)."""
    found = repo.clusters.get(cluster)
    root = None if found is None else found.write_endpoint
    if root is None:
        return f"cluster:{cluster}"
    head, path = split_uri(root)
    return f"{head.lower()}{re.sub('/+', '/', path).rstrip('/') or '/'}"


def same_file_system(repo: ConfigRepo, first: str, second: str) -> bool:
    """Whether two clusters are one file system: the same cluster, or two whose write endpoints are one root."""
    return first == second or file_system(repo, first) == file_system(repo, second)


@dataclass(frozen=True)
class Meeting:
    """A folder a mirror writes that is, lies inside or holds (`how`) a folder someone else writes (`theirs`, as a
    sentence names it)."""

    mine: MirrorFolder
    how: str
    theirs: str


@dataclass(frozen=True)
class _Owned:
    path: str
    described: str
    mirror: str | None  # the mirror writing it, None for a feed's or a cluster's folder


class WrittenFolders:
    """What the feeds, the clusters (their staging, temp, working and other locations: the ledger among them) and
    the mirrors write, by file system, found by path: a look-up per ancestor and a range of the sorted paths per
    folder, built once for a repo of thousands of entities."""

    def __init__(self, repo: ConfigRepo) -> None:
        self.repo = repo
        self._systems: dict[str, str] = {}  # cluster -> file_system(), worked out once per cluster
        self._by_system: dict[str, dict[str, list[_Owned]]] = {}
        for feed in repo.feeds.values():
            for feed_cluster in feed.clusters:
                name = feed_cluster.name
                for owned in folders_of(feed, feed.locations_on(name), feed.table_on(name)):
                    self._add(name, _Owned(owned.path, f"{owned.described} on cluster '{name}'", None))
        for found in repo.clusters.values():
            for name, path in found.locations.items():
                if path.startswith("/") and folder_problem(path) is None:
                    self._add(found.name, _Owned(normalize_uri(path), f"the {name} location {path!r} of cluster "
                                                 f"'{found.name}', where the toolkit keeps its files (the ledger is in "
                                                 "working)", None))
        for mirror in repo.mirrors.values():
            for each in mirror_folders(mirror):
                if written(each) and folder_problem(each.value) is None:
                    on = cluster_of(mirror, each.side)
                    self._add(on, _Owned(each.path, f"{each.named} of mirror '{mirror.name}' on cluster '{on}'",
                                         mirror.name))
        self._sorted = {system: sorted(paths) for system, paths in self._by_system.items()}

    def _system(self, cluster: str) -> str:
        if cluster not in self._systems:
            self._systems[cluster] = file_system(self.repo, cluster)
        return self._systems[cluster]

    def _add(self, cluster: str, owned: _Owned) -> None:
        self._by_system.setdefault(self._system(cluster), {}).setdefault(owned.path, []).append(owned)

    def meetings(self, mirror: Mirror) -> Iterator[Meeting]:
        """Each usable folder the mirror writes against what the others write on that folder's file system."""
        for folder in mirror_folders(mirror):
            if not written(folder) or folder_problem(folder.value) is not None:
                continue
            system = self._system(cluster_of(mirror, folder.side))
            for owned in self._meeting(system, folder.path):
                if owned.mirror != mirror.name:
                    how = relation(folder.path, owned.path)
                    if how is not None:
                        yield Meeting(folder, how, owned.described)

    def _meeting(self, system: str, path: str) -> Iterator[_Owned]:
        """The folders of `system` that may be `path`, an ancestor of it, or below it (`relation` decides)."""
        by_path = self._by_system.get(system, {})
        for found in meeting_paths(self._sorted.get(system, []), path):
            yield from by_path[found]
