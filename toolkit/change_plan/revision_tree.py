"""What a checkout of a revision's tree holds, decided from git's listing before anything is written. A revision
planned is someone else's commit, and git accepts trees no checkout makes: a symbolic link `clusters` to a folder of
this machine beside entries `clusters/...`, a link whose target holds a NUL byte. A link that names a regular file
of the revision (directly or through other such links) stands for that file, as a working tree reads it, and is
written as a copy of it; any other link, and any entry below a link or a file, is refused in one sentence (exit 2).
So the folder a revision is written into holds no link at all, and nothing outside the revision is read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from toolkit.errors import UsageError

LINK, FILE_MODES = "120000", ("100644", "100755")
LONGEST_LINK = 4095  # bytes of a link's target: PATH_MAX less its closing NUL; a longer one names no path
_HOPS = 40  # links followed one after another, as Linux follows at most (MAXSYMLINKS)


class TreeEntry(NamedTuple):
    """A file or link of the tree: its git mode, blob, size in bytes, and path in the config repo's folder."""

    mode: str
    blob: str
    size: int
    path: str


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


def checked_out(entries: list[TreeEntry], targets: Mapping[str, bytes], at: Revision) -> list[TreeEntry]:
    """The files a checkout writes: each file at its path, and each link (its target in `targets`, by path) as a
    copy of the file it names, with the link's path; UsageError for any other link, an entry below a link or a
    file, and a path held twice."""
    by_path: dict[str, TreeEntry] = {}
    for entry in entries:
        if entry.path in by_path:
            raise UsageError(f"The revision {at.commit[:12]} holds {at.shown(entry.path)} twice, a tree no checkout "
                             "makes: fix the commit.")
        by_path[entry.path] = entry
    folders = {parent for path in by_path for parent in _parents(path)}
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
        named = _named_file(entry.path, targets, by_path, folders)
        if named is None:
            target = targets[entry.path].decode("utf-8", "surrogateescape")
            raise UsageError(f"The revision {at.commit[:12]} holds a symbolic link {at.shown(entry.path)} to "
                             f"{target!r}, which is not a file of the config repo at that revision: a revision's "
                             "links are read only when they name one of its files; replace the link with the file "
                             "it stands for.")
        files.append(named._replace(path=entry.path))
    return files


def _parents(path: str) -> list[str]:
    """`a/b/c` -> [`a`, `a/b`]."""
    return [path[:end] for end, character in enumerate(path) if character == "/"]


def _named_file(link: str, targets: Mapping[str, bytes], by_path: Mapping[str, TreeEntry],
                folders: set[str]) -> TreeEntry | None:
    """The regular file of the tree that `link` leads to, resolved as the kernel resolves it in a checkout (each
    `..` from the folder reached so far, only folders of the tree gone through); None when it leads anywhere else:
    out of the repo, to a folder, to nothing, through a file or a link used as a folder, or round a loop."""
    for _ in range(_HOPS):
        target = targets[link].decode("utf-8", "surrogateescape")
        if not target or "\0" in target or target.startswith("/") or target.endswith("/"):
            return None
        parts, names = link.split("/")[:-1], target.split("/")
        for index, name in enumerate(names):
            if name in ("", "."):
                continue
            if name == "..":
                if not parts:
                    return None  # out of the config repo's folder
                parts.pop()
                continue
            parts.append(name)
            if index < len(names) - 1 and "/".join(parts) not in folders:
                return None  # gone through a file, a link or nothing, as if it were a folder
        reached = by_path.get("/".join(parts))
        if reached is None or reached.mode != LINK:
            return reached
        link = reached.path
    return None
