"""The git commit a config repo's folder is at, read with `git` once per call: what every record of the run says it
ran (toolkit/core/entities/provenance.py). A repo that is not in git, or a machine without git, has none: the records
say `commit: null`, never fail for it. $FEED_TOOLKIT_NO_GIT=1 does not ask git (a monorepo whose `git status` is
slow): the records then keep the definition's hash alone. A config repo that `toolkit rerun --as-ran` wrote from a
commit (a folder `repo` beside a file `checked-out-commit` naming it) is that commit, whatever git says of the folder
it is in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from toolkit.core.entities.provenance import RepoRevision

NO_GIT = "FEED_TOOLKIT_NO_GIT"
CHECKED_OUT = ("repo", "checked-out-commit")  # a commit's files written into `repo`, the commit named beside it
_TIMEOUT = 20  # seconds: a local repository answers in milliseconds; a hung NFS mount must not hold the run


def repo_revision(root: Path) -> RepoRevision | None:
    """HEAD's commit of the git repository holding `root`, `dirty` when a file under `root` differs from it
    (modified, staged, deleted or untracked, ignored files aside); None when there is none to read, or when
    $FEED_TOOLKIT_NO_GIT is set."""
    written = checked_out_commit(root)
    if written is not None:
        return written
    if os.environ.get(NO_GIT):
        return None
    head = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if head is None or not head.strip():
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=normal", "--", ".")
    try:
        return RepoRevision(head.strip(), bool(status and status.strip()))
    except ValueError:
        return None


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False,
                              timeout=_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def checked_out_commit(root: Path) -> RepoRevision | None:
    """The commit a folder written from one says it holds (`CHECKED_OUT`); None for any other folder, or a marker that
    names no full commit id."""
    folder, marker = CHECKED_OUT
    if root.name != folder:
        return None
    try:
        named = (root.parent / marker).read_text(encoding="ascii").strip()
        return RepoRevision(named, False)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
