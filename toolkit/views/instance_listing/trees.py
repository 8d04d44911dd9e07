"""What an instance folder holds, for many folders at once: one listing per depth for all of them (`list_many` at the
top, where the flag's modification time is wanted; `list_kinds_many` below, which reads no folder's status). The
bytes count every file of the tree, hidden ones included (what it takes on disk, as Falcon's listing counts it);
symbolic links are named, never followed nor counted. A folder that cannot be read is an error, never an empty
folder; one deleted while it is walked (retention evicting it) makes its instance's tree gone, never a smaller one."""

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
    gone: bool = False


@dataclass(frozen=True)
class Tree:
    """An instance folder's tree: its bytes, how many visible files (what readers read: no name below the folder
    starts with `_` or `.`), the flag's modification time at its top (None: no flag there), its links."""

    size: int
    visible: int
    flag_ms: int | None
    links: tuple[str, ...]
    gone: bool = False  # a folder of it was deleted while it was walked: the instance is being removed


def measure_trees(fs: FileSystem, roots: Sequence[str], flag: str | None) -> dict[str, Tree]:
    """The tree of each folder in `roots` (folders that are in none of the others' trees), by root."""
    tallies = {root: _Tally() for root in roots}
    owner = {root: (tallies[root], True) for root in roots}  # a folder's tally, and whether its names are visible
    frontier, top = list(roots), True
    while frontier:
        listed = listed_or_gone(fs, frontier, kinds_only=not top)
        following: list[str] = []
        for folder, children in listed.items():
            tally, visible = owner[folder]
            if children is None:
                tally.gone = True
                continue
            for child in children:
                if _counted(child, tally, visible and not hidden(child.name), flag if top else None):
                    owner[child.path] = (tally, visible and not hidden(child.name))
                    following.append(child.path)
        frontier, top = following, False
    if flag is not None and "/" in flag:  # a flag in a sub-folder (`done/_SUCCESS`, as ingest's closing writes it)
        for root, tally in tallies.items():
            found = None if tally.gone else fs.status(f"{root.rstrip('/')}/{flag}")
            tally.flag_ms = found.modification_time if found is not None and not (found.is_dir or found.is_link) \
                else None
    return {root: Tree(t.size, t.visible, t.flag_ms, tuple(sorted(t.links)), t.gone) for root, t in tallies.items()}


def listed_or_gone(fs: FileSystem, folders: Sequence[str], kinds_only: bool) -> dict[str, list[FileStatus] | None]:
    """Each folder's entries, listed in one batch (`list_many`, or `list_kinds_many` when only names, kinds and
    lengths are wanted); a folder the batch answers empty is looked at again, since the batch says the same of one
    that is empty, gone or unreadable: None when it is gone (deleted since it was seen), [] when it is empty, and a
    StorageError (exit 1) naming it when it is there but cannot be listed (no permission to read it)."""
    batch = fs.list_kinds_many(folders) if kinds_only else fs.list_many(folders)
    listed: dict[str, list[FileStatus] | None] = {}
    for folder, children in batch.items():
        if children:
            listed[folder] = children
        elif fs.status(folder) is None:
            listed[folder] = None
        else:
            listed[folder] = fs.list(folder)
    return listed


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
