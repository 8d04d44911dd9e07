"""The frame of every entrypoint: common arguments, errors turned into one sentence on stderr and the
documented exit code, the status line last. The action itself is a function given the parsed args."""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import sys
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities import parse_cache
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import TimedOutError, ToolkitError, UsageError
from toolkit.services.runtime import driver_logging
from toolkit.services.runtime.installed_pyspark import prefer_installed_pyspark
from toolkit.services.runtime.repo_revision import repo_revision
from toolkit.services.runtime.status import STATUS_OF_EXIT, StatusLine, emit
from toolkit.services.runtime.streams import separate_stderr
from toolkit.services.runtime.times import nominal_time
from toolkit.shown_text import shown
from toolkit.statuses import Status


def common_parser(action: str, description: str,
                  time_help: str = "Nominal time yyyy-MM-ddTHH:mmZ (UTC); default: now, to the minute.",
                  prog: str | None = None) -> argparse.ArgumentParser:
    """The arguments every entrypoint takes; `prog` names the program in the usage line (default `<action>.py`)."""
    parser = argparse.ArgumentParser(prog=prog or f"{action}.py", description=description)
    parser.add_argument("--repo", type=Path, required=True, help="The config repo (clusters/, feeds/, processes/).")
    parser.add_argument("--time", help=time_help)
    parser.add_argument("--status-file", type=status_file_path,
                        help="Also write the JSON status line to this file (replaced whole at the end of the call).")
    parser.add_argument("--verbose", action="store_true",
                        help=f"Spark's INFO logging on stderr too (default: warnings and errors only; "
                             f"or set {driver_logging.LEVEL_VARIABLE}; docs/logging.md).")
    return parser


def load_repo(path: Path) -> ConfigRepo:
    """The config repo an action runs on, or UsageError (exit 2) naming its first problem. An action runs every
    hour or minute on a repo that rarely changes: its unchanged valid files come from the parse cache
    (toolkit/core/entities/parse_cache.py), which saves a third of a second of schema checks a run and gives the same
    result; $FEED_TOOLKIT_NO_CACHE=1 turns it off. The repo's git commit is read too: the run's records say which
    definition they ran (toolkit/core/entities/provenance.py)."""
    repo = ConfigRepo.load(path, cached=not parse_cache.turned_off())
    repo.revision = repo_revision(repo.root)
    return repo


def status_file_path(text: str) -> Path:
    """An argparse type: a place a file can be written, checked before the action does anything (a bad one is exit 2
    with argparse's message). A link there is replaced by the file, as every file a command writes
    (toolkit/core/storage/local_files.py)."""
    path = Path(text)
    if path.is_dir() and not path.is_symlink():
        raise argparse.ArgumentTypeError(f"{path} is a folder: give the path of a file")
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise argparse.ArgumentTypeError(f"{path} lies below {folder}, which is no folder: give the path of "
                                                 "a file in a folder")
            break
    return path


MAX_SECONDS = 366 * 86400  # the most `seconds` takes: a year


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, zero or more (a bad one is exit 2 with argparse's message)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0 or value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to a year")
    return value


def run(action: str, parser: argparse.ArgumentParser, body: Callable[[argparse.Namespace, StatusLine], Status],
        argv: list[str] | None = None) -> int:
    """Parse `argv` (default: the program's arguments), call `body(args, status)`, map errors to exit codes. The
    frame fills the status line's fields every call has, so that no action can leave one out: the entity and the
    cluster the call names (`--feed` or `--process`; `--cluster`, or a replication's `--target`), the status the
    body returns (or its error's), the time the call took; the body adds its own counters, and the time through
    `nominal` (or, where its time is not the call's `--time`, by setting `status.time`)."""
    began = time.perf_counter()
    prefer_installed_pyspark()  # before anything imports pyspark: its bytecode cached, not spark-submit's zip
    status = StatusLine(action=action, run_id=new_run_id())
    args = None
    separate_stderr()
    try:
        args = _parse(parser, argv)
        if args.verbose:
            os.environ[driver_logging.LEVEL_VARIABLE] = "info"  # read when the session starts, and by child runs
        status.entity = getattr(args, "feed", None) or getattr(args, "process", None)
        status.cluster = getattr(args, "cluster", None) or getattr(args, "target", None)
        status.status = body(args, status)
    except ToolkitError as err:
        record_error(status, err)
    if status.elapsed_seconds is None:
        status.elapsed_seconds = round(time.perf_counter() - began, 3)
    return emit(status, getattr(args, "status_file", None))


def nominal(args: argparse.Namespace, status: StatusLine) -> datetime:
    """The call's nominal time (`--time`, or now to the minute), said in its status line at once: the line names
    the time the body works on, and a call refused after this point still says which instance it was about."""
    t = nominal_time(args.time)
    status.time = format_timestamp(t)
    return t


def new_run_id() -> str:
    """The id of one run: in its status line, its ledger records, its leases and its lineage."""
    return uuid.uuid4().hex[:12]


def record_error(status: StatusLine, err: ToolkitError) -> None:
    """The error's one sentence on stderr (prefixed with the action), its status and message in the status line."""
    print(error_sentence(status, err), file=sys.stderr, flush=True)


def error_sentence(status: StatusLine, err: ToolkitError) -> str:
    """The error's status and message in the status line; its one sentence for stderr, prefixed with the action,
    fit to show (a password the error quotes is never said, a control character is an escape)."""
    status.status = Status.TIMEDOUT if isinstance(err, TimedOutError) else STATUS_OF_EXIT.get(err.exit_code,
                                                                                               Status.FAILED)
    status.error = str(err)
    return shown(f"{status.action}: {err}")


def parsed_quietly(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | None:
    """`argv` parsed, or None when argparse refuses it, its message unsaid: for a step before the entrypoint (the
    wait before Spark), which leaves a bad call to the entrypoint to say once."""
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):  # and --help
            return parser.parse_args(argv)
    except SystemExit:
        return None


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """argparse exits 2 on bad arguments with its own message; keep that, but as a UsageError."""
    try:
        return parser.parse_args(argv)
    except SystemExit as stop:
        if stop.code in (0, None):
            raise
        raise UsageError("bad arguments (see the usage line above)") from None
