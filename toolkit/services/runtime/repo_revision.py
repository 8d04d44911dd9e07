"""The git commit a config repo's folder is at, read with `git` once per call: what every record of the run says it
ran (toolkit/core/entities/provenance.py). A repo that is not in git, or a machine without git, has none: the records
say `commit: null`, never fail for it. $FEED_TOOLKIT_NO_GIT=1 does not ask git (a monorepo whose `git status` is
slow): the records then keep the definition's hash alone. $FEED_TOOLKIT_CHECKED_OUT_COMMIT names the commit whose
files the folder holds without asking git: `toolkit rerun --as-ran` sets it for the folder it wrote them into."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from toolkit.core.entities.provenance import RepoRevision

NO_GIT = "FEED_TOOLKIT_NO_GIT"
CHECKED_OUT_COMMIT = "FEED_TOOLKIT_CHECKED_OUT_COMMIT"
_TIMEOUT = 20  # seconds: a local repository answers in milliseconds; a hung NFS mount must not hold the run


def repo_revision(root: Path) -> RepoRevision | None:
    """HEAD's commit of the git repository holding `root`, `dirty` when a file under `root` differs from it
    (modified, staged, deleted or untracked, ignored files aside); None when there is none to read, or when
    $FEED_TOOLKIT_NO_GIT is set."""
    if os.environ.get(NO_GIT):
        return None
    if os.environ.get(CHECKED_OUT_COMMIT):
        return _checked_out(os.environ[CHECKED_OUT_COMMIT])
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


def _checked_out(named: str) -> RepoRevision | None:
    """The commit $FEED_TOOLKIT_CHECKED_OUT_COMMIT names (None when it names no full commit id): the folder holds that
    commit's files, whether or not some git work tree around it says otherwise."""
    try:
        return RepoRevision(named.strip(), False)
    except ValueError:
        return None
