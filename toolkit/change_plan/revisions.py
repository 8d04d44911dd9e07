"""The config repo as it was at a git revision: its folder's tree at that commit, written from git's objects into a
scratch folder, so that it loads exactly as a working tree does: every file the commit holds, symbolic links as links
(an entity file may be one), whatever `.gitattributes` says of archives. The config repo may be a folder inside a
larger git repository (its path there is kept)."""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from toolkit.errors import UsageError

_TIMEOUT = 120  # seconds for one git command: a local repository answers in well under one
_LINK, _FILE_MODES = "120000", ("100644", "100755")
_MEMORY, _MEMORY_ROOM = "/dev/shm", 1 << 30  # a folder in memory, used when it has this many bytes free


@contextmanager
def revision_scratch(prefix: str) -> Iterator[Path]:
    """A scratch folder for revisions to be extracted into, removed afterwards: in memory (/dev/shm) where the
    machine has one with room and TMPDIR names no other place, since a revision is a thousand small files, written
    there in 50 ms and in 0.7 s on a journaled disk; else the temporary folder."""
    try:
        made = tempfile.TemporaryDirectory(prefix=prefix, dir=_memory_folder())
    except OSError as err:
        where = f"in {err.filename}" if err.filename else "in any temporary folder"  # no temporary folder is usable
        raise UsageError(f"Cannot make a scratch folder for a revision {where}: {err.strerror} (set TMPDIR to a "
                         "folder this user can write).") from None
    with made as scratch:
        yield Path(scratch)


def _memory_folder() -> str | None:
    if os.environ.get("TMPDIR"):
        return None
    try:
        room = os.statvfs(_MEMORY)
    except OSError:
        return None
    return _MEMORY if room.f_bavail * room.f_frsize >= _MEMORY_ROOM and os.access(_MEMORY, os.W_OK | os.X_OK) else None


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False, timeout=_TIMEOUT,
                              input=stdin)
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


def extract(repo: Path, commit: str, into: Path) -> Path | None:
    """The config repo's folder at `commit`, written into the new folder `into`; None when the folder did not exist
    at that commit."""
    prefix = _git(repo, "rev-parse", "--show-prefix").stdout.decode().strip().rstrip("/")
    tree = f"{commit}:{prefix}" if prefix else f"{commit}^{{tree}}"
    listed = _git(repo, "ls-tree", "-r", "-z", "--full-tree", tree)  # not narrowed to the working folder
    if listed.returncode != 0:
        return None
    entries = []  # (mode, object, path) of the files and links
    for record in listed.stdout.split(b"\0"):
        if not record:
            continue
        head, _, name = record.partition(b"\t")
        mode, kind, obj = head.decode().split(" ")
        path = name.decode("utf-8", "surrogateescape")
        if kind != "blob" or (mode != _LINK and mode not in _FILE_MODES):
            continue  # a submodule: no file of this repo
        if Path(path).is_absolute() or ".." in Path(path).parts:
            raise UsageError(f"The revision {commit[:12]} holds a path that leaves the repo ({path!r}).")
        entries.append((mode, obj, path))
    try:
        into.mkdir(parents=True)
        _write(repo, entries, into)
    except OSError as err:
        room = " (no space left: set TMPDIR to a folder with room)" if err.errno == errno.ENOSPC else ""
        raise UsageError(f"Cannot write revision {commit[:12]} of {repo} into {into}: {err.strerror}{room}.") from None
    return into


def _write(repo: Path, entries: list[tuple[str, str, str]], into: Path) -> None:
    """Each entry's bytes from one `git cat-file --batch` (a link's are its target), its folder made once."""
    batch = _git(repo, "cat-file", "--batch", stdin="".join(f"{obj}\n" for _, obj, _ in entries).encode())
    out, position, made = batch.stdout, 0, {into}
    for mode, _, path in entries:
        header_end = out.index(b"\n", position)
        size = int(out[position:header_end].split(b" ")[2])
        content = out[header_end + 1:header_end + 1 + size]
        position = header_end + 1 + size + 1
        target = into / path
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        if mode == _LINK:
            os.symlink(content.decode("utf-8", "surrogateescape"), target)
        else:
            target.write_bytes(content)
