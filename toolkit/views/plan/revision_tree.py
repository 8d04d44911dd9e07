"""What a checkout of a revision's tree holds, decided from git's listing before anything is written. A revision
planned is someone else's commit, and git accepts trees no checkout makes: a symbolic link `clusters` to a folder of
this machine beside entries `clusters/...`, a link whose target holds a NUL byte. A link that names a regular file
of the revision (directly or through other such links) stands for that file, as a working tree reads it, and is
written as a copy of it; any other link, and any entry below a link or a file, is refused in one sentence (exit 2).
So the folder a revision is written into holds no link at all, and nothing outside the revision is read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import filterfalse
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from toolkit.errors import UsageError

LINK, FILE_MODES = "120000", ("100644", "100755")
LONGEST_LINK = 4095  # bytes of a link's target: PATH_MAX less its closing NUL; a longer one names no path
_HOPS = 40  # links followed one after another, as Linux follows at most (MAXSYMLINKS)
_SAME_FOLDER = frozenset(("", "."))  # the names of a target that stay in the folder reached (`a//./b` is `a/b`)


class TreeEntry(NamedTuple):
    """A file or link of the tree: its git mode, blob, size in bytes, and path in the config repo's folder."""

    mode: str
    blob: str
    size: int
    path: str


# The bytes of the blobs of the entries given, read in runs of bounded size (revisions.py).
BlobReader = Callable[[list[TreeEntry]], Iterable[tuple[TreeEntry, memoryview]]]


class Revision(NamedTuple):
    """The config repo (as the call named it) and the commit a tree is of: what its messages name."""

    repo: Path
    commit: str

    def shown(self, path: str) -> str:
        """A path of the tree as the user finds it: `conf/clusters/primary.yaml`, quoted and escaped."""
        return repr((self.repo / path).as_posix())


def tree_entries(listing: bytes, at: Revision) -> list[TreeEntry]:
    """The files and links of `git ls-tree -r -l -z` output (a submodule is no file of the repo); UsageError for a
    path that leaves the repo and for a link longer than any path (refused by its size, before it is read)."""
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        head, _, name = record.partition(b"\t")
        mode, kind, blob, size = head.decode().split()
        if kind != "blob" or (mode != LINK and mode not in FILE_MODES):
            continue
        named = PurePosixPath(name.decode("utf-8", "surrogateescape"))
        path = "/".join(named.parts)
        if named.is_absolute() or ".." in named.parts or not named.parts:
            raise UsageError(f"The revision {at.commit[:12]} holds a path that leaves the repo ({str(named)!r}).")
        if mode == LINK and int(size) > LONGEST_LINK:
            raise UsageError(f"The revision {at.commit[:12]} holds a symbolic link {at.shown(path)} of {int(size):,} "
                             "bytes, longer than any path: replace the link with the file it stands for.")
        entries.append(TreeEntry(mode, blob, int(size), path))
    return entries


def checked_out(entries: list[TreeEntry], read: BlobReader, at: Revision) -> list[TreeEntry]:
    """The files a checkout writes: each file at its path, and each link as a copy of the file it names, with the
    link's path; UsageError for any other link, an entry below a link or a file, and a path held twice. `read`
    gives the bytes of the blobs of the entries it is given, in runs of bounded size: each link's target is reduced,
    as it is read, to the entry of the tree it names (_hops), so what is held is one reference per link, never the
    targets (100,000 links of 4 KB targets are 400 MB of them)."""
    by_path: dict[str, TreeEntry] = {}
    for entry in entries:
        if entry.path in by_path:
            raise UsageError(f"The revision {at.commit[:12]} holds {at.shown(entry.path)} twice, a tree no checkout "
                             "makes: fix the commit.")
        by_path[entry.path] = entry
    folders = {parent for path in by_path for parent in _parents(path)}
    hops = _hops([entry for entry in entries if entry.mode == LINK], read, by_path, folders, at)
    files = []
    for entry in entries:
        above = next((by_path[parent] for parent in _parents(entry.path) if parent in by_path), None)
        if above is not None:
            what = "symbolic link" if above.mode == LINK else "file"
            raise UsageError(f"The revision {at.commit[:12]} holds {at.shown(entry.path)} below its {what} "
                             f"{at.shown(above.path)}, a tree no checkout makes: fix the commit.")
        if entry.mode != LINK:
            files.append(entry)
            continue
        named = _named_file(entry, hops)
        if named is None:  # round a loop: its target read again for the message
            raise _not_a_file(at, entry, next(iter(read([entry])))[1])
        files.append(named._replace(path=entry.path))
    return files


def _parents(path: str) -> list[str]:
    """`a/b/c` -> [`a`, `a/b`]."""
    return [path[:end] for end, character in enumerate(path) if character == "/"]


def _hops(links: list[TreeEntry], read: BlobReader, by_path: Mapping[str, TreeEntry], folders: set[str],
          at: Revision) -> dict[str, TreeEntry]:
    """Each link's path -> the entry of the tree its target names from the link's folder (a file or another link);
    UsageError for the first link, in the tree's order, whose target names nothing of the tree, as soon as it is
    read. A target is read and resolved once for all the links of one folder that hold its blob."""
    first: dict[tuple[str, str], TreeEntry] = {}  # (a link's folder, its blob) -> the first link of the pair
    for link in links:
        first.setdefault((link.path.rpartition("/")[0], link.blob), link)
    from_folder: dict[tuple[str, str], TreeEntry] = {}  # (a link's folder, its blob) -> the entry its target names
    for link, content in read(list(first.values())):
        folder = link.path.rpartition("/")[0]
        reached = _hop(folder, content.tobytes().decode("utf-8", "surrogateescape"), by_path, folders)
        if reached is None:
            raise _not_a_file(at, link, content)
        from_folder[(folder, link.blob)] = reached
    return {link.path: from_folder[(link.path.rpartition("/")[0], link.blob)] for link in links}


def _not_a_file(at: Revision, link: TreeEntry, target: memoryview) -> UsageError:
    shown = target.tobytes().decode("utf-8", "surrogateescape")
    return UsageError(f"The revision {at.commit[:12]} holds a symbolic link {at.shown(link.path)} to {shown!r}, "
                      "which is not a file of the config repo at that revision: a revision's links are read only "
                      "when they name one of its files; replace the link with the file it stands for.")


def _hop(folder: str, target: str, by_path: Mapping[str, TreeEntry], folders: set[str]) -> TreeEntry | None:
    """The entry `target` names from `folder`, resolved as the kernel resolves it in a checkout (each `..` from the
    folder reached so far, only folders of the tree gone through); None when it leads anywhere else: out of the
    repo, to a folder, to nothing, or through a file or a link used as a folder."""
    if not target or "\0" in target or target.startswith("/") or target.endswith("/"):
        return None
    *through, last = target.split("/")
    parts = folder.split("/") if folder else []
    for name in filterfalse(_SAME_FOLDER.__contains__, through):  # skipped in C: a target may hold 2,000 of them
        if name == "..":
            if not parts:
                return None  # out of the config repo's folder
            parts.pop()
            continue
        parts.append(name)
        if "/".join(parts) not in folders:
            return None  # gone through a file, a link or nothing, as if it were a folder
    if last == "..":
        if not parts:
            return None
        parts.pop()
    elif last != ".":
        parts.append(last)
    return by_path.get("/".join(parts))


def _named_file(link: TreeEntry, hops: Mapping[str, TreeEntry]) -> TreeEntry | None:
    """The regular file of the tree that `link` leads to, directly or through other links; None round a loop."""
    for _ in range(_HOPS):
        reached = hops[link.path]
        if reached.mode != LINK:
            return reached
        link = reached
    return None
