"""The config repo as it was at a git revision: its folder's tree at that commit, extracted from git into a scratch
folder, so that it loads exactly as a working tree does. The config repo may be a folder inside a larger git
repository (its path there is kept)."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

from toolkit.errors import UsageError

_TIMEOUT = 120  # seconds for one git command: a local repository answers in well under one


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False, timeout=_TIMEOUT)
    except FileNotFoundError:
        raise UsageError("git is not on PATH: toolkit plan reads the base revision of the config repo with git; "
                         "install git or put it on PATH.") from None


def commit_of(repo: Path, revision: str) -> str:
    """The commit `revision` names in the git repository that holds `repo`; UsageError when there is none."""
    if revision.startswith("-"):
        raise UsageError(f"The revision {revision!r} starts with '-': give a commit, branch or tag.")
    inside = _git(repo, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0:
        raise UsageError(f"The config repo {repo} is not in a git repository: toolkit plan compares it with a "
                         "revision of its history (run it in a clone, or give --base-repo).")
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


def extract(repo: Path, commit: str, into: Path) -> Path:
    """The config repo's folder at `commit`, written into the new folder `into`; UsageError when it did not exist
    then."""
    prefix = _git(repo, "rev-parse", "--show-prefix").stdout.decode().strip().rstrip("/")
    top = Path(_git(repo, "rev-parse", "--show-toplevel").stdout.decode().strip())
    tree = f"{commit}:{prefix}" if prefix else commit
    archive = _git(top, "archive", "--format=tar", tree)  # from the top: run in a folder, git archives only it
    if archive.returncode != 0:
        raise UsageError(f"The config repo's folder {prefix or '.'!r} did not exist at {commit[:12]}: give a base "
                         "revision that has it.")
    into.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        members = [member for member in tar.getmembers() if member.isfile() or member.isdir()]  # no link leaves it
    for member in members:
        if Path(member.name).is_absolute() or ".." in Path(member.name).parts:
            raise UsageError(f"The revision {commit[:12]} holds a path that leaves the repo ({member.name!r}).")
    _write(archive.stdout, members, into)
    return into


def _write(archive: bytes, members: list[tarfile.TarInfo], into: Path) -> None:
    """The archive's folders and files (their bytes sliced from the archive, each folder made once): a third of
    the time of `extractall`, whose per-member checks and metadata are no use on a scratch copy read once."""
    made = {into}
    for member in members:
        path = into / member.name
        folder = path if member.isdir() else path.parent
        if folder not in made:
            folder.mkdir(parents=True, exist_ok=True)
            made.add(folder)
        if member.isfile():
            path.write_bytes(archive[member.offset_data:member.offset_data + member.size])
