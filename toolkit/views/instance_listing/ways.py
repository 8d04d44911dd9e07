"""Whether the folders that hold a feed's instances can be listed without following a symbolic link: each folder
between the cluster's root (the operator's, not looked at) and it is looked up once, however many instances share
it (a year of hourly instances: about 380 folders, not 8,760 paths). A listing of a folder reached through a link
would read somewhere else than its name says, perhaps outside the root."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.uris import join_under, normalize_uri, path_below


@dataclass(frozen=True)
class Way:
    """A folder's way from the root: `open` when it and every folder above it (below the root) are folders, not
    links; else `link` names the first link on it, or is None when a part is missing (or a file)."""

    open: bool
    link: str | None = None


_OPEN = Way(True)
_ABSENT = Way(False)


def ways_below(fs: FileSystem, root: str, folders: Iterable[str]) -> dict[str, Way]:
    """The way of each folder (a full URI under `root`), by the folder as given; StorageError for one that is not
    under the root."""
    known: dict[str, Way] = {}
    return {folder: _way(fs, root, folder, known) for folder in folders}


def _way(fs: FileSystem, root: str, folder: str, known: dict[str, Way]) -> Way:
    relative = path_below(root, folder)
    if relative is None:
        raise StorageError(f"Cannot list {normalize_uri(folder)}: it is not under the cluster root "
                           f"{normalize_uri(root)}.")
    names = [name for name in relative.split("/") if name]
    way = _OPEN
    for depth in range(1, len(names) + 1):
        current = join_under(root, "/".join(names[:depth]))
        found = known.get(current)
        if found is None:
            found = known[current] = _looked_up(fs, current)
        if not found.open:
            return found
        way = found
    return way


def _looked_up(fs: FileSystem, folder: str) -> Way:
    status = fs.status(folder)
    if status is None or not (status.is_dir or status.is_link):
        return _ABSENT
    return Way(False, normalize_uri(folder)) if status.is_link else _OPEN
