"""Which feed instances exist and are complete, in a few batched listings, with the files they hold.

A file feed's instance is available when its folder holds the feed's availability flag, or, for a feed
without one, when its folder exists. A table feed's instance is available when its partition is registered.
The files of an available instance (the ones readers read: names starting with `_` or `.` are hidden) come
with it: they are what its fingerprint is made of, so checking a window and fingerprinting it is one walk.

A window of 720 hourly instances costs one listing of their parent folders, one of the instance folders and
one per deeper level: `list_many` answers each in one round trip on the JVM file system. A few instances (what a
producer fingerprints right after publishing) are digested a tree at a time where the file system does that in one
call (`tree_digest`: on the JVM the files never cross to Python).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.instances.feed_locations import FeedLocations, under_root
from toolkit.core.instances.fingerprints import Fingerprint, fingerprint
from toolkit.core.storage.catalog import Catalog, PartitionListing
from toolkit.core.storage.filesystem import FileStatus, FileSystem, TreeDigest, normalize_uri, parent_of
from toolkit.core.storage.tree import hidden


@dataclass(frozen=True)
class InstanceState:
    """One feed instance: where it is (a path, or a table's partition), whether it is available, and when it is,
    the fingerprint of its files (relative path, length, modification time)."""

    time: datetime
    location: str
    available: bool
    fingerprint: Fingerprint | None = None
    partition: dict[str, str] | None = None


def probe_files(fs: FileSystem, where: FeedLocations, flag: str | None,
                times: Sequence[datetime]) -> dict[datetime, InstanceState]:
    """The state of each instance of a file feed at `times`."""
    paths = {t: normalize_uri(under_root(where.root, where.paths["data"].format(t, where.zone))) for t in times}
    parents = sorted({parent_of(path) for path in paths.values()})
    existing = {child.path for children in fs.list_many(parents).values() for child in children if child.is_dir}
    present = sorted(path for path in set(paths.values()) if path in existing)
    digests = _digests(fs, present, flag)
    files = _files_below(fs, [path for path in present if path not in digests], flag)
    states = {}
    for t, path in paths.items():
        digested = digests.get(path)
        if digested is not None:
            flagged, digest = digested
            states[t] = _digested_state(t, path, flag is None or flagged, digest)
            continue
        found = files.get(path)
        if found is not None and (flag is None or found[0]):
            states[t] = InstanceState(t, path, True, fingerprint(path, found[1]))
        else:
            states[t] = InstanceState(t, path, False, None)
    return states


_DIGESTED = 4  # up to this many instances are digested a tree each (one call each) rather than walked by depth


def known_files(fs: FileSystem, where: FeedLocations, flag: str | None, t: datetime,
                digest: TreeDigest) -> InstanceState:
    """The state of the instance at `t` whose visible files a caller just digested (a replication that found the
    target as the source): only its flag is looked up."""
    path = normalize_uri(under_root(where.root, where.paths["data"].format(t, where.zone)))
    found = fs.status(f"{path}/{flag}") if flag else None
    return _digested_state(t, path, flag is None or (found is not None and not found.is_dir), digest)


def _digested_state(t: datetime, path: str, available: bool, digest: TreeDigest) -> InstanceState:
    return InstanceState(t, path, available, Fingerprint.of(digest) if available
                         else None)


def _digests(fs: FileSystem, roots: Sequence[str], flag: str | None) -> dict[str, tuple[bool, TreeDigest]]:
    """The roots the file system digested (`FileSystem.tree_digest`), when they are few."""
    if len(roots) > _DIGESTED:
        return {}
    digests = {root: fs.tree_digest(root, flag) for root in roots}
    return {root: digest for root, digest in digests.items() if digest is not None}


def _files_below(fs: FileSystem, roots: Sequence[str], flag: str | None) -> dict[str, tuple[bool, list[FileStatus]]]:
    """For each root: whether it holds `flag` at its top, and its visible files; one batch per depth."""
    found: dict[str, tuple[bool, list[FileStatus]]] = {root: (False, []) for root in roots}
    owner = {root: root for root in roots}
    frontier = list(roots)
    top = set(roots)
    while frontier:
        following = []
        for folder, children in fs.list_many(frontier).items():
            root = owner[folder]
            for child in children:
                if folder in top and flag is not None and child.name == flag and not child.is_dir:
                    found[root] = (True, found[root][1])
                if hidden(child.name):
                    continue
                if child.is_dir:
                    owner[child.path] = root
                    following.append(child.path)
                else:
                    found[root][1].append(child)
        frontier = following
    return found


def probe_table(catalog: PartitionListing, fs: FileSystem, where: FeedLocations,
                times: Sequence[datetime]) -> dict[datetime, InstanceState]:
    """The state of each instance of a table feed: its partition registered or not, and its files."""
    table = where.table
    assert table is not None
    registered = {tuple(sorted(p.values.items())): p for p in catalog.list_partitions(table.database, table.table)}
    wanted = {t: table.format(t, where.zone) for t in times}
    partitions = {t: registered.get(tuple(sorted(spec.items()))) for t, spec in wanted.items()}
    roots = sorted({normalize_uri(p.location) for p in partitions.values() if p is not None and p.location})
    files = _files_below(fs, roots, None)
    states = {}
    for t, partition in partitions.items():
        name = f"{table.database}.{table.table} ({table.format_spec(t, where.zone)})"
        if partition is None:
            states[t] = InstanceState(t, name, False, partition=wanted[t])
            continue
        root = normalize_uri(partition.location) if partition.location else ""
        created = partition.create_time.timestamp() if partition.create_time else None
        states[t] = InstanceState(t, name, True, fingerprint(root, files.get(root, (False, []))[1], created),
                                  partition=wanted[t])
    return states


def probe_instance(fs: FileSystem, where: FeedLocations, flag: str | None, catalog: Callable[[], Catalog],
                   t: datetime) -> InstanceState:
    """The state of one instance of a file or table feed (`catalog` is opened for a table feed only): what a
    producer fingerprints right after publishing it."""
    if where.is_table:
        return probe_table(catalog(), fs, where, [t])[t]
    return probe_files(fs, where, flag, [t])[t]
