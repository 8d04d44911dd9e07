"""What storage holds at each instance path of a file feed: nothing, a folder (its tree measured) or a file, found
from one listing of each parent folder (a day's folder holds its 24 hours) rather than a look-up per path, and
never through a symbolic link (ways.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from toolkit.core.storage.filesystem import FileStatus, FileSystem, parent_of
from toolkit.core.storage.tree import hidden
from toolkit.views.instance_listing.trees import Tree, listed_or_gone, measure_trees
from toolkit.views.instance_listing.ways import ways_below


@dataclass(frozen=True)
class Stored:
    """An instance path as storage has it: whether something is there (a folder, or a file), its bytes and visible
    files, its flag's and its own modification times (ms), and the links met on the way or inside."""

    present: bool
    size: int | None = None
    visible: int = 0
    flag_ms: int | None = None
    own_ms: int | None = None
    links: tuple[str, ...] = ()

    @property
    def created_ms(self) -> int | None:
        """When it was created: its flag's modification time, else its own."""
        return self.flag_ms if self.flag_ms is not None else self.own_ms


_NOTHING = Stored(False)


def stored_instances(fs: FileSystem, root: str, paths: Mapping[datetime, str],
                     flag: str | None) -> dict[datetime, Stored]:
    """`paths` (normalized URIs under `root`, by instance time) as storage has them."""
    parents = {path: parent_of(path) for path in paths.values()}
    ways = ways_below(fs, root, sorted(set(parents.values())))
    # names and kinds only: an instance's own modification time is looked up where its flag gives none (`_timed`)
    listed = listed_or_gone(fs, sorted(folder for folder, way in ways.items() if way.open), kinds_only=True)
    entries = {entry.path: entry for children in listed.values() for entry in children or ()}
    folders = [path for path in paths.values() if ways[parents[path]].open and _is_folder(entries.get(path))]
    trees = measure_trees(fs, folders, flag)
    found = {}
    for t, path in paths.items():
        way = ways[parents[path]]
        if not way.open:
            found[t] = Stored(False, links=(way.link,)) if way.link is not None else _NOTHING
            continue
        found[t] = _timed(fs, _stored(entries.get(path), trees.get(path)), path)
    return found


def _is_folder(entry: FileStatus | None) -> bool:
    return entry is not None and entry.is_dir


def _stored(entry: FileStatus | None, tree: Tree | None) -> Stored:
    if entry is None:
        return _NOTHING
    if entry.is_link:
        return Stored(False, links=(entry.path,))
    if tree is None:  # a file where the instance's folder belongs: the instance is that file
        return Stored(True, entry.length, 0 if hidden(entry.name) else 1)
    if tree.gone:  # deleted while it was listed (retention evicting it): not there
        return Stored(False, links=tree.links)
    return Stored(True, tree.size, tree.visible, tree.flag_ms, links=tree.links)


def _timed(fs: FileSystem, stored: Stored, path: str) -> Stored:
    """`stored` with its own modification time, when it is there without a flag to date it."""
    if not stored.present or stored.flag_ms is not None:
        return stored
    status = fs.status(path)  # gone since it was listed: not dated
    return replace(stored, own_ms=status.modification_time) if status is not None and not status.is_link else stored
