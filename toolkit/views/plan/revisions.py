"""The config repo as it was at a git revision: its folder's tree at that commit, listed with each file's size,
then the files wanted written from git's objects into a scratch folder, so that they load exactly as a working tree's
do: whatever `.gitattributes` says of archives, and a symbolic link that names a file of the revision (an entity
file may be one) as a copy of that file; any other link is refused (revision_tree.py), so nothing is ever written
through a link or read from outside the revision. Blobs are read in runs of bounded size, and a big one is streamed
by git straight into its file: a revision's size costs the plan no memory. What is written is known, by size,
before it is written: the scratch folder is in memory only while the revision takes a small share of it, and files
that do not fit where they would be written are refused. The config repo may be a folder inside a larger git
repository (its path there is kept)."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import NamedTuple

from toolkit.errors import UsageError
from toolkit.views.plan.revision_tree import Revision, TreeEntry, checked_out, tree_entries

_TIMEOUT = 120  # seconds for one git command: a local repository answers in well under one
_RUN_BYTES = 16 << 20  # blobs read by one `git cat-file --batch`, at most; a bigger blob is streamed alone
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_MEMORY, _MEMORY_SHARE = "/dev/shm", 4  # a folder in memory, used for revisions below this fraction of its room


class RevisionFiles(NamedTuple):
    """A revision's files as a checkout writes them (a link as a copy of the file it names), with their sizes."""

    at: Revision
    files: list[TreeEntry]

    @property
    def size(self) -> int:
        """Bytes of all its files: what writing every one would take."""
        return sum(entry.size for entry in self.files)


@contextmanager
def revision_scratch(prefix: str, size: int) -> Iterator[Path]:
    """A scratch folder for revisions of at most `size` bytes in all to be written into, removed afterwards: in
    memory (/dev/shm) where the machine has one, TMPDIR names no other place and `size` is below a quarter of its
    room, since a revision is a thousand small files, written there in 50 ms and in 0.7 s on a journaled disk; else
    the temporary folder, on disk (a revision that takes memory the machine needs is not written in memory)."""
    try:
        made = tempfile.TemporaryDirectory(prefix=prefix, dir=_memory_folder(size))
    except OSError as err:
        where = f"in {err.filename}" if err.filename else "in any temporary folder"  # no temporary folder is usable
        raise UsageError(f"Cannot make a scratch folder for a revision {where}: {err.strerror} (set TMPDIR to a "
                         "folder this user can write).") from None
    with made as scratch:
        yield Path(scratch)


def _memory_folder(size: int) -> str | None:
    if os.environ.get("TMPDIR"):
        return None
    try:
        room = os.statvfs(_MEMORY)
    except OSError:
        return None
    share = room.f_bavail * room.f_frsize // _MEMORY_SHARE
    return _MEMORY if size < share and os.access(_MEMORY, os.W_OK | os.X_OK) else None


def _git(repo: Path, *args: str, stdin: bytes | None = None,
         into: int | None = None) -> subprocess.CompletedProcess[bytes]:
    """git's answer, its output captured (or written to the file `into`, a descriptor); UsageError when git cannot
    run or does not answer in time."""
    try:
        return subprocess.run(["git", "-C", str(repo), *args], stdout=subprocess.PIPE if into is None else into,
                              stderr=subprocess.PIPE, check=False, timeout=_TIMEOUT, input=stdin)
    except FileNotFoundError:
        raise UsageError("git is not on PATH: the base revision of the config repo is read with git; install git "
                         "or put it on PATH.") from None
    except PermissionError:
        raise UsageError("git on PATH cannot be run (permission denied): the base revision of the config repo is "
                         "read with git; fix PATH or the file's mode.") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {args[0]} did not answer within {_TIMEOUT} s in {repo}: is the repository on a "
                         "slow or hung mount?") from None


def commit_of(repo: Path, revision: str) -> str:
    """The commit `revision` names in the git repository that holds `repo`; UsageError when there is none."""
    if revision.startswith("-"):
        raise UsageError(f"The revision {revision!r} starts with '-': give a commit, branch or tag.")
    inside = _git(repo, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0:
        said = inside.stderr.decode(errors="replace")
        if "dubious ownership" in said or "safe.directory" in said:
            raise UsageError(f"git refuses to read {repo}: it belongs to another user (add it to git's "
                             "safe.directory, or run as its owner).")
        raise UsageError(f"The config repo {repo} is not in a git repository: its revisions are read from its "
                         "history (run in a clone, or give --base-repo).")
    found = _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if found.returncode != 0:
        raise UsageError(f"The revision {revision!r} is not a commit of the git repository of {repo}: give a commit, "
                         "branch or tag it knows (a CI checkout may need `git fetch` of the base branch).")
    return found.stdout.decode().strip()


def unborn(repo: Path) -> bool:
    """Whether `repo` is in a git repository that has no commit yet (its first commit is being made)."""
    return (_git(repo, "rev-parse", "--is-inside-work-tree").returncode == 0
            and _git(repo, "rev-parse", "--verify", "--quiet", "HEAD").returncode != 0
            and not _git(repo, "rev-list", "-n", "1", "--all").stdout.strip())


def revision_files(repo: Path, commit: str) -> RevisionFiles | None:
    """The files of the config repo's folder at `commit`, from git's listing (nothing written); None when the folder
    did not exist at that commit. UsageError for a tree no checkout makes or a link that is not one of its files
    (revision_tree.py)."""
    prefix = _git(repo, "rev-parse", "--show-prefix").stdout.decode().strip().rstrip("/")
    tree = f"{commit}:{prefix}" if prefix else f"{commit}^{{tree}}"
    listed = _git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", tree)  # not narrowed to the working folder
    if listed.returncode != 0:
        return None
    at = Revision(repo, commit)
    return RevisionFiles(at, checked_out(tree_entries(listed.stdout, at), partial(_contents, at), at))


def write(revision: RevisionFiles, into: Path, wanted: Callable[[str], bool]) -> None:
    """The files of `revision` whose path is `wanted` written into the folder `into` (made when missing; a file
    already there is an error: each is wanted once). UsageError, before any is written, when they take more than
    the room left where `into` is."""
    files = [entry for entry in revision.files if wanted(entry.path)]
    at = revision.at
    try:
        into.mkdir(parents=True, exist_ok=True)
        room = os.statvfs(into)
        needed, free = sum(entry.size for entry in files), room.f_bavail * room.f_frsize
        if needed > free:
            raise UsageError(f"The revision {at.commit[:12]} of {at.repo} needs {needed:,} bytes written in {into}, "
                             f"more than the {free:,} bytes free there: set TMPDIR to a folder with room.")
        _write(at, files, into)
    except OSError as err:
        room_left = " (no space left: set TMPDIR to a folder with room)" if err.errno == errno.ENOSPC else ""
        raise UsageError(f"Cannot write revision {at.commit[:12]} of {at.repo} into {into}: "
                         f"{err.strerror}{room_left}.") from None


def _write(at: Revision, files: list[TreeEntry], into: Path) -> None:
    """Each file's bytes into a new file of `into` (which holds no link: links are copies, checked_out), the small
    ones from runs of `git cat-file --batch`, each big one streamed by git into its file."""
    made = {into}
    for entry, content in _contents(at, [entry for entry in files if entry.size < _RUN_BYTES]):
        with open(_created(into, entry, made), "wb") as out:
            out.write(content)
    for entry in files:
        if entry.size >= _RUN_BYTES:
            handle = _created(into, entry, made)
            try:
                streamed = _git(at.repo, "cat-file", "blob", entry.blob, into=handle)
            finally:
                os.close(handle)
            if streamed.returncode != 0:
                raise _missing(at, entry)


def _contents(at: Revision, entries: list[TreeEntry]) -> Iterator[tuple[TreeEntry, memoryview]]:
    """Each entry's bytes, read by one `git cat-file --batch` per run of at most _RUN_BYTES (unless one entry alone
    is bigger): what is held at once is one run's output."""
    for run in _runs(entries):
        out = _git(at.repo, "cat-file", "--batch", stdin="".join(f"{entry.blob}\n" for entry in run).encode()).stdout
        view, position = memoryview(out), 0
        for entry in run:
            header_end = out.find(b"\n", position)
            header = out[position:header_end].split(b" ") if header_end >= 0 else []
            if len(header) != 3 or header_end + int(header[2]) + 2 > len(out):
                raise _missing(at, entry)
            size = int(header[2])
            yield entry, view[header_end + 1:header_end + 1 + size]
            position = header_end + 1 + size + 1


def _runs(entries: Iterable[TreeEntry]) -> Iterator[list[TreeEntry]]:
    run: list[TreeEntry] = []
    size = 0
    for entry in entries:
        if run and size + entry.size > _RUN_BYTES:
            yield run
            run, size = [], 0
        run.append(entry)
        size += entry.size
    if run:
        yield run


def _missing(at: Revision, entry: TreeEntry) -> UsageError:
    return UsageError(f"The blob of {at.shown(entry.path)} at revision {at.commit[:12]} cannot be read from the git "
                      f"repository of {at.repo} (a partial clone missing it?): fetch that revision whole.")


def _created(into: Path, entry: TreeEntry, made: set[Path]) -> int:
    """A new file for `entry` in `into`, its folders made first; nothing is followed: no folder made is a link, the
    file must not exist (O_EXCL) nor be a link (O_NOFOLLOW)."""
    target = into / entry.path
    missing = []
    folder = target.parent
    while folder not in made:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                raise
        made.add(folder)
    return os.open(target, _NEW_FILE, 0o755 if entry.mode == "100755" else 0o644)
