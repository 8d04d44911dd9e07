"""Where a streamed feed's ingest folders may lie on a cluster: each a fixed folder of its own, never at, inside or
around a feed's data (the fixed folder before the first `${...}` of its `data` template) or another feed's landing
or dead-letter folder. Pure path work, in one place for the linter (FD030, FD034) and the ingest run
(toolkit/actions/ingest/overlaps.py), so that what lints clean is what runs. Paths are under each cluster's root: only
feeds on one cluster can collide.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from toolkit.core.el.templates import PathTemplate
from toolkit.core.entities.model import Feed
from toolkit.errors import UsageError
from toolkit.uris import has_dot_segment, is_below, normalize_uri

LANDING, DEAD_LETTERS, DATA = "ingest.landing", "ingest.dead-letters", "locations.data"


@dataclass(frozen=True)
class Folder:
    """A folder a feed owns on a cluster: the fixed folder of its data (`field` DATA) or an ingest folder."""

    feed: str
    field: str
    path: str  # one spelling (normalize_uri), under the cluster root

    @property
    def described(self) -> str:
        """How a sentence names it, with its feed and field."""
        if self.field == DATA:
            return f"the data folder {self.path!r} of feed '{self.feed}' (the fixed part of its {DATA})"
        return f"the {self.field} {self.path!r} of feed '{self.feed}'"


@dataclass(frozen=True)
class Overlap:
    """An ingest folder of a feed (`mine`) that is, lies inside or holds (`how`) another folder (`theirs`)."""

    mine: Folder
    how: str
    theirs: Folder

    def sentence(self, where: str) -> str:
        """What overlaps `where` (`cluster 'primary'`) and what to do, a sentence without its feed and full stop."""
        mine, theirs = self.mine, self.theirs
        if theirs.field == DATA:
            why, fix = "ingest's files would mix with that feed's instances", f"give {mine.field} a folder outside it"
        else:
            why, fix = "the two ingests would read or write each other's files", "give one a folder of its own"
        return f"{mine.field} {mine.path!r} {self.how} {theirs.described} on {where}; {why}: {fix}{self._example()}"

    def _example(self) -> str:
        """`, such as /rejected/<feed>` when that folder would be apart from the other; else nothing."""
        folder = f"/landing/{self.mine.feed}" if self.mine.field == LANDING else f"/rejected/{self.mine.feed}"
        if folder == self.mine.path or relation(folder, self.theirs.path) is not None:
            return ""
        return f", such as {folder}"


def relation(path: str, folder: str) -> str | None:
    """How `path` meets `folder`: it "is" it, "lies inside" it, "holds" it, or None when they are apart."""
    if path == folder:
        return "is"
    if is_below(path, folder):
        return "lies inside"
    return "holds" if is_below(folder, path) else None


def folder_problem(path: str) -> str | None:
    """Why an ingest `path` is no fixed absolute folder under a cluster root, or None when it is one."""
    if not path.startswith("/"):
        return "is not an absolute path: give a folder under the cluster root that starts with /"
    if has_dot_segment(path):
        return "has a '.' or '..' segment: give the folder without them"
    if "${" in path:
        return ("has a ${...} variable, but records of every time land in one folder: give a fixed folder, such "
                "as /landing/<feed>")
    if normalize_uri(path) == "/":
        return "is the cluster root: give a folder of its own, such as /landing/<feed>"
    return None


def ingest_folders(feed: Feed) -> tuple[Folder, ...]:
    """The feed's landing and dead-letter folders that are fixed folders (FD030 reports the others)."""
    if feed.ingest is None:
        return ()
    paths = {LANDING: feed.ingest.landing, DEAD_LETTERS: feed.ingest.dead_letters}
    return tuple(Folder(feed.name, field, normalize_uri(path)) for field, path in paths.items()
                 if folder_problem(path) is None)


def data_prefix(locations: Mapping[str, str], table: str | None) -> str | None:
    """The fixed folder of the `data` template of a feed stored in files on a cluster (its storage there after
    overrides); None for a table, no data, a template that does not parse, or one fixed only at the root."""
    data = locations.get("data")
    if table is not None or data is None:
        return None
    return _template_prefix(data)


@lru_cache(maxsize=8192)
def _template_prefix(text: str) -> str | None:
    try:
        prefix = PathTemplate(text).static_prefix
    except UsageError:  # FD008's to report
        return None
    return None if prefix in ("", "/") else normalize_uri(prefix)


def folders_of(feed: Feed, locations: Mapping[str, str], table: str | None) -> list[Folder]:
    """The folders `feed` owns on a cluster where its storage is `locations` or `table`."""
    prefix = data_prefix(locations, table)
    data = [Folder(feed.name, DATA, prefix)] if prefix is not None else []
    return [*data, *ingest_folders(feed)]


class Folders:
    """The folders of the feeds on one cluster, found by path: a look-up per ancestor and a range of the sorted
    paths per folder, not a comparison with every feed."""

    def __init__(self, folders: Iterable[Folder]) -> None:
        self._by_path: dict[str, list[Folder]] = {}
        for folder in dict.fromkeys(folders):
            self._by_path.setdefault(folder.path, []).append(folder)
        self._paths = sorted(self._by_path)

    def overlaps(self, feed: Feed, *, own_data: bool) -> Iterator[Overlap]:
        """Each ingest folder of `feed` against every other feed's folders here (and its own data's with
        `own_data`); never its own ingest folders against each other (FD030's)."""
        for mine in ingest_folders(feed):
            for theirs in self._meeting(mine.path):
                if theirs.feed != feed.name or (own_data and theirs.field == DATA):
                    how = relation(mine.path, theirs.path)
                    if how is not None:
                        yield Overlap(mine, how, theirs)

    def _meeting(self, path: str) -> Iterator[Folder]:
        """The folders that may be `path`, an ancestor of it, or below it (`relation` decides)."""
        for found in meeting_paths(self._paths, path):
            yield from self._by_path[found]


def meeting_paths(paths: Sequence[str], path: str) -> Iterator[str]:
    """Those of the sorted `paths` that may be `path`, an ancestor of it, or below it: a look-up per ancestor and a
    range of the sorted paths, not a comparison with each (`relation` decides)."""
    ancestors = [path[:cut] for cut in range(len(path)) if path[cut] == "/" and cut > 0]
    for candidate in (path, *reversed(ancestors)):
        index = bisect.bisect_left(paths, candidate)
        if index < len(paths) and paths[index] == candidate:
            yield candidate
    below = path + "/"
    index = bisect.bisect_left(paths, below)
    while index < len(paths) and paths[index].startswith(below):
        yield paths[index]
        index += 1
