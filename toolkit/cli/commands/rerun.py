"""`toolkit rerun`: the spark-submit commands that rerun the failed (or other) instances of a process in a
window, printed for the scheduler or a shell, or run one after the other with `--execute`; with `--as-ran`, each
with the definitions of the commit that first ran it (toolkit/views/status/as_ran.py). With `--feed` and `--action`,
the same for a feed's replication, retention, database import or export (toolkit/views/reruns/), with `--continue`
where the action can resume."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import ClusterName, NowOption, Repo, Scope, open_scope, require
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import STATUSES
from toolkit.errors import UsageError
from toolkit.services.runtime.submit import entrypoint, process_entrypoint, spark_submit, submit_arguments, worst
from toolkit.views.ledger_access import Now, open_ledger
from toolkit.views.reruns.registry import ACTIONS, action_reruns
from toolkit.views.reruns.rows import ActionReruns, Window
from toolkit.views.status.as_ran import SHORT, CheckedOut, RanAt, checked_out_instances
from toolkit.views.status.instance_rows import InstanceRow

DEFAULT_STATUSES = "FAILED,TIMEDOUT,KILLED"
RerunFrom = Annotated[str | None, typer.Option("--from", help="First instance time, yyyy-MM-ddTHH:mmZ (required).")]
RerunTo = Annotated[str | None, typer.Option("--to", help="Last instance time (required, included).")]


def _statuses(text: str) -> list[str]:
    wanted = [item.strip().upper() for item in text.split(",") if item.strip()]
    unknown = [item for item in wanted if item not in STATUSES]
    if unknown or not wanted:
        raise UsageError(f"Unknown --status {', '.join(unknown) or repr(text)}: give a comma-separated list of "
                         f"{', '.join(STATUSES)}.")
    return wanted


def rerun_command(
    repo: Repo = Path("."),
    process: Annotated[str | None, typer.Option(
        "--process", help="The process whose instances to rerun (or --feed and --action).")] = None,
    feed: Annotated[str | None, typer.Option(
        "--feed", help="The feed whose action's instances to rerun, with --action.")] = None,
    action: Annotated[str | None, typer.Option(
        "--action", help=f"With --feed: {', '.join(ACTIONS)} (--cluster: " + "; ".join(
            f"{item.name}, {item.cluster_is}" for item in ACTIONS.values()) + ").")] = None,
    cluster: ClusterName = None,
    from_: RerunFrom = None,
    to: RerunTo = None,
    status: Annotated[str, typer.Option("--status", help=(
        "The statuses to rerun, comma-separated, as `toolkit status` shows them (a dead RUNNING run is KILLED, "
        "a never-run instance WAITING)."))] = DEFAULT_STATUSES,
    execute: Annotated[bool, typer.Option("--execute", help=(
        "Run the commands one after the other, their output streamed, and exit with the worst exit code "
        "(PYSPARK_PYTHON defaults to this Python)."))] = False,
    resume: Annotated[bool, typer.Option("--continue", help=(
        "A feed's action that can resume does: a replication keeps what a former run copied and verified and copies "
        "only what is missing or changed (without it, every file of the instance is copied again); refused for "
        "the actions that cannot resume and for processes."))] = False,
    as_ran: Annotated[bool, typer.Option("--as-ran", help=(
        "Rerun each instance with the definitions of the commit that first ran it (its first attempt's record), "
        "read from git into a folder of their own (never the working tree), not with the current files; an instance "
        "whose definition is in no commit, or a commit git no longer has, is refused (exit 2)."))] = False,
    now: NowOption = None,
) -> None:
    """Print, one per line, the spark-submit command that reruns each instance of the window whose status is in
    --status (`process.py ... --time T --force`); with --execute, run them. spark-submit gets the arguments of the
    cluster's scheduled calls: its `trigger.submit-args` (else spark-submit's defaults and your spark-defaults.conf
    decide the master) and the class-data archive its `jvm.class-archive` names.

    With --as-ran each command is given the repo's files at that commit (`--repo` a folder the command writes and
    names on stderr, with the commit named beside it so that the rerun's records say it; --execute removes it
    afterwards). With --execute, SIGTERM (a scheduler's stop) ends the running command and the reruns as Ctrl-C
    does.

    With --feed and --action, the instances of a feed's action as its records in the cluster's ledger give them (a
    run that died holding its lease is KILLED; instances never run are not listed), rerun through its entrypoint:
    replication.py (every file copied again with --recopy; --continue keeps what a former run copied and verified),
    retention.py (the eviction evaluated again at that nominal time), import.py and export.py (with --force),
    hive_export.py and hive_import.py (into, or from, the directory the run was given; an import that succeeded
    consumed its export unless it kept it: rerun the export first).

    \b
    toolkit rerun --repo conf --process hourly-clicks-summary --cluster primary \\
        --from 2026-11-21T00:00Z --to 2026-11-21T23:00Z
    toolkit rerun --repo conf --process hourly-clicks-summary --cluster primary \\
        --from 2026-11-21T00:00Z --to 2026-11-21T23:00Z --status SUCCEEDED --as-ran --execute
    toolkit rerun --repo conf --feed clicks --action replication --cluster backup \
        --from 2026-11-21T00:00Z --to 2026-11-21T23:00Z --continue --execute
    """
    window = (require(from_, "--from", "the first instance of the window to rerun"),
              require(to, "--to", "the last instance of the window to rerun"))
    wanted = _statuses(status)
    if feed is not None or action is not None:
        if process is not None:
            raise UsageError("Give --process, or --feed with --action, not both.")
        if as_ran:
            raise UsageError("--as-ran reruns process instances (a feed's action records no definition of its own): "
                             "rerun the feed's action without it.")
        _rerun_action(repo, require(feed, "--feed", "the feed whose action to rerun"),
                      action_reruns(require(action, "--action", f"one of {', '.join(ACTIONS)}")), cluster,
                      _Asked(window, wanted, execute, resume, now))
        return
    if resume:
        raise UsageError("--continue is for a feed's actions that can resume (a replication): a process instance's "
                         "attempt starts over; rerun it without --continue.")
    scope = open_scope(repo, process, cluster, now)
    rows = [row for row in scope.rows(from_, to, with_missing=False) if row.status in wanted]
    if not rows:
        typer.echo(f"No instance of {scope.owner} from {from_} to {to} is {' or '.join(wanted)}: nothing to rerun.",
                   err=True)
        return
    submit = [spark_submit(), *submit_arguments(None, scope.cluster), process_entrypoint()]
    checked = _checked_out(scope, repo, rows) if as_ran else {}
    commands = [[*submit, "--repo", str(checked[row.time].repo if as_ran else repo), "--process",
                 scope.process.name, "--cluster", scope.cluster.name, "--time", format_timestamp(row.time), "--force"]
                for row in rows]
    commits = [checked[row.time].commit if as_ran else None for row in rows]
    if not execute:
        for command in commands:
            typer.echo(shlex.join(command))
        return
    signal.signal(signal.SIGTERM, _interrupted)  # the running command is killed and the folders removed
    try:
        _execute(submit, commands, commits)
    finally:
        for folder in set(checked.values()):  # one per commit, shared by its instances
            folder.remove()


@dataclass(frozen=True)
class _Asked:
    """What the call asks of the reruns of a feed's action: the window as given, the statuses, whether to run them
    and to resume, the current time."""

    window: tuple[str, str]
    wanted: list[str]
    execute: bool
    resume: bool
    now: str | None


def _rerun_action(repo: Path, feed_name: str, reruns: ActionReruns, cluster_name: str | None, asked: _Asked) -> None:
    """The reruns of a feed's action in the window whose status is wanted: printed, or run with --execute."""
    window, wanted, resume = asked.window, asked.wanted, asked.resume
    if resume and reruns.resumes is None:
        raise UsageError(f"The {reruns.name} of a feed cannot --continue ({reruns.why_not}): rerun it without "
                         "--continue.")
    name = require(cluster_name, "--cluster", reruns.cluster_is)
    config = ConfigRepo.load(repo)
    feed, on = config.feed(feed_name), config.cluster(name)
    first, last = parse_timestamp(window[0], "--from"), parse_timestamp(window[1], "--to")
    if first > last:
        raise UsageError(f"--from {window[0]} is after --to {window[1]}: give the window's first instance, then its "
                         "last.")
    current = Now.of(asked.now)
    last = min(last, current.time)  # instances after now are not listed
    rows = [row for row in reruns.rows(open_ledger(on, current), config, feed, on, Window(first, last, current.seconds))
            if row.status in wanted]
    if not rows:
        typer.echo(f"No {reruns.name} of feed '{feed.name}' on '{on.name}' from {window[0]} to {window[1]} is "
                   f"{' or '.join(wanted)}: nothing to rerun.", err=True)
        return
    submit = [spark_submit(), *submit_arguments(None, on), entrypoint(reruns.entrypoint)]
    commands = [[*submit, "--repo", str(repo), *reruns.arguments(config, feed, on, row, resume)] for row in rows]
    if not asked.execute:
        for command in commands:
            typer.echo(shlex.join(command))
        return
    signal.signal(signal.SIGTERM, _interrupted)
    _execute(submit, commands, [None] * len(commands))


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _checked_out(scope: Scope, repo: Path, rows: list[InstanceRow]) -> dict[datetime, CheckedOut]:
    """Each row's instance's repo at the commit that first ran it, one folder per commit, each said on stderr."""
    def tell(count: int, at: RanAt, folder: CheckedOut) -> None:
        typer.echo(f"toolkit rerun --as-ran: {count} instance(s) as they first ran, at commit {at.commit[:SHORT]} "
                   f"({at.definition}); its config repo is written in {folder.repo}", err=True)

    return checked_out_instances(repo, scope.ledger, scope.process.name, scope.cluster, [row.time for row in rows],
                                 tell)


def _execute(submit: list[str], commands: list[list[str]], commits: list[str | None]) -> None:
    for program, what in ((submit[0], "spark-submit"), (submit[-1], f"entrypoints/{Path(submit[-1]).name}")):
        if not (Path(program).is_file() if os.sep in program else shutil.which(program)):
            raise UsageError(f"Cannot run the reruns: {what} is not found at {program}; print the commands "
                             "without --execute and run them where it is.")
    environment = {"PYSPARK_PYTHON": sys.executable, **os.environ}
    codes = []
    for index, (command, commit) in enumerate(zip(commands, commits, strict=True), 1):
        typer.echo(f"toolkit rerun ({index}/{len(commands)}): {shlex.join(command)}"
                   + (f" (as it ran at commit {commit[:SHORT]})" if commit else ""))
        sys.stdout.flush()
        codes.append(_run_stoppably(command, environment))
        typer.echo(f"toolkit rerun ({index}/{len(commands)}): exit {codes[-1]}")
    code = worst(codes)
    if code:
        raise typer.Exit(code)


def _run_stoppably(command: list[str], environment: dict[str, str]) -> int:
    """The command's exit code. SIGTERM or Ctrl-C kills it and is raised here as KeyboardInterrupt once it is reaped,
    also when it lands while the command starts: a KeyboardInterrupt raised inside Popen (between the child's start
    and Popen's return, a moment a busy machine widens) would leave the child running, orphaned, holding our output
    open. So the signals are only noted until Popen has returned the child."""
    stops: list[int] = []
    noted = {sig: signal.signal(sig, lambda signum, frame: stops.append(signum)) for sig in (signal.SIGTERM,
                                                                                         signal.SIGINT)}
    child = None
    try:
        child = subprocess.Popen(command, env=environment)
        for sig in noted:
            signal.signal(sig, _interrupted)
        if stops:
            raise KeyboardInterrupt
        return child.wait()
    except BaseException:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        raise
    finally:
        for sig, handler in noted.items():
            signal.signal(sig, handler)
