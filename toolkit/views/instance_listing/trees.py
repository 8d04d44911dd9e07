"""What an instance folder holds, for many folders at once: one listing per depth for all of them (`list_many` at the
top, where the flag's modification time is wanted; `list_kinds_many` below, which reads no folder's status). The
bytes count every file of the tree, hidden ones included (what it takes on disk, as Falcon's listing counts it);
symbolic links are named, never followed nor counted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from toolkit.core.storage.filesystem import FileStatus, FileSystem
from toolkit.core.storage.tree import hidden


@dataclass
class _Tally:
    """A tree's figures while it is walked (made immutable as a `Tree` at the end)."""

    size: int = 0
    visible: int = 0
    flag_ms: int | None = None
    links: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Tree:
    """An instance folder's tree: its bytes, how many visible files (what readers read: no name below the folder
    starts with `_` or `.`), the flag's modification time at its top (None: no flag there), its links."""

    size: int
    visible: int
    flag_ms: int | None
    links: tuple[str, ...]


def measure_trees(fs: FileSystem, roots: Sequence[str], flag: str | None) -> dict[str, Tree]:
    """The tree of each folder in `roots` (folders that are in none of the others' trees), by root."""
    tallies = {root: _Tally() for root in roots}
    owner = {root: (tallies[root], True) for root in roots}  # a folder's tally, and whether its names are visible
    frontier, top = list(roots), True
    while frontier:
        listed = fs.list_many(frontier) if top else fs.list_kinds_many(frontier)
        following: list[str] = []
        for folder, children in listed.items():
            tally, visible = owner[folder]
            for child in children:
                if _counted(child, tally, visible and not hidden(child.name), flag if top else None):
                    owner[child.path] = (tally, visible and not hidden(child.name))
                    following.append(child.path)
        frontier, top = following, False
    return {root: Tree(t.size, t.visible, t.flag_ms, tuple(sorted(t.links))) for root, t in tallies.items()}


def _counted(child: FileStatus, tally: _Tally, visible: bool, flag: str | None) -> bool:
    """Add one entry to its tree's tally; True for a folder to walk into."""
    if child.is_link:
        tally.links.append(child.path)
        return False
    if child.is_dir:
        return True
    tally.size += child.length
    tally.visible += int(visible)
    if flag is not None and child.name == flag:
        tally.flag_ms = child.modification_time
    return False
