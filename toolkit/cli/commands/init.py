"""`toolkit init`: a new config repo that lints clean and runs as its README says (toolkit/cli/skeleton/)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from toolkit.authoring.lint.runner import lint_repo
from toolkit.core.entities.problems import Severity
from toolkit.core.storage.local import rename_no_replace
from toolkit.errors import UsageError

DEFAULT_CLUSTER = "local"


def init_command(
    directory: Annotated[Path, typer.Argument(help="The new config repo's folder: absent or empty.")],
    cluster: Annotated[str, typer.Option("--cluster", help="The cluster's name.")] = DEFAULT_CLUSTER,
    root: Annotated[str | None, typer.Option(
        "--root", help="The root of the cluster's file system, where the feeds' data, the staging and the ledger "
                       "go: file:///an/absolute/path on one machine, hdfs://namenode:8020 on Hadoop. Default: "
                       "file:///tmp/feed-toolkit/<cluster>.")] = None,
) -> None:
    """Write a minimal config repo: one cluster, a feed of raw events, an hourly process that counts them with a
    SQL workflow into a second feed, a pre-commit hook running toolkit lint, and a README of next steps.

    It lints clean; its README's commands (an hour of events, the process run, a retention dry run, the generated
    crontab) work as printed (docs/getting-started.md). Nothing is overwritten: the folder must be absent or empty.
    Exit 0 written, 2 a folder in the way, a --cluster that is no cluster's name, a --root that is no plain URI
    (skeleton/values.py) or one the linter refuses: nothing written, checked before anything is.

    \b
    toolkit init my-pipelines
    toolkit init conf --cluster primary --root hdfs://namenode:8020
    """
    from toolkit.cli.skeleton import files

    root = root or f"file:///tmp/feed-toolkit/{cluster}"
    written = files(cluster, root)  # the names checked first: nothing is written for a bad one
    _require_new(directory)
    staged = Path(tempfile.mkdtemp(prefix=".toolkit-init-", dir=directory.resolve().parent))
    try:
        for relative, text in written.items():
            (staged / relative).parent.mkdir(parents=True, exist_ok=True)
            (staged / relative).write_text(text, encoding="utf-8")
        refused = [problem for problem in lint_repo(staged).problems if problem.severity is Severity.ERROR]
        if refused:
            raise UsageError(f"toolkit init cannot write this repo: {refused[0].message} (give another --cluster "
                             "or --root); nothing was written.")
        _move_into_place(staged, directory)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    typer.echo(f"init: wrote a config repo for cluster '{cluster}' on {root} in {directory}: "
               f"{len(written)} files; its README.md says what to run next.", err=True)


def _require_new(directory: Path) -> None:
    if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
        raise UsageError(f"{directory} exists and is not a folder: give the path of a new folder.")
    if directory.is_dir() and any(directory.iterdir()):
        raise UsageError(f"{directory} is not empty: give a new or empty folder (toolkit init never overwrites).")
    if not directory.resolve().parent.is_dir():
        raise UsageError(f"The folder {directory.resolve().parent} does not exist: create it first.")


def _move_into_place(staged: Path, directory: Path) -> None:
    """The staged repo renamed to `directory` by a rename that never replaces: whatever took its place since it was
    checked (a link, a file, a folder) is left, and nothing is written."""
    try:
        if directory.is_dir() and not directory.is_symlink():
            directory.rmdir()  # empty, checked above, unless it was filled since
        rename_no_replace(str(staged), str(directory))
    except OSError as err:
        raise UsageError(f"{directory} changed while toolkit init wrote the repo ({err.strerror}): give a new or "
                         "empty folder; nothing was written.") from None
