"""`toolkit rerun`: the spark-submit commands that rerun the failed (or other) instances of a process in a
window, printed for the scheduler or a shell, or run one after the other with `--execute`."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import ClusterName, NowOption, ProcessName, Repo, open_scope, require
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.ledger.records import STATUSES
from toolkit.errors import UsageError
from toolkit.services.runtime.submit import process_entrypoint, spark_submit, submit_arguments, worst

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
    process: ProcessName = None,
    cluster: ClusterName = None,
    from_: RerunFrom = None,
    to: RerunTo = None,
    status: Annotated[str, typer.Option("--status", help=(
        "The statuses to rerun, comma-separated, as `toolkit status` shows them (a dead RUNNING run is KILLED, "
        "a never-run instance WAITING)."))] = DEFAULT_STATUSES,
    execute: Annotated[bool, typer.Option("--execute", help=(
        "Run the commands one after the other, their output streamed, and exit with the worst exit code "
        "(PYSPARK_PYTHON defaults to this Python)."))] = False,
    now: NowOption = None,
) -> None:
    """Print, one per line, the spark-submit command that reruns each instance of the window whose status is in
    --status (`process.py ... --time T --force`); with --execute, run them. spark-submit gets the arguments of the
    cluster's scheduled calls: its `trigger.submit-args` (else spark-submit's defaults and your spark-defaults.conf
    decide the master) and the class-data archive its `jvm.class-archive` names.

    \b
    toolkit rerun --repo conf --process hourly-clicks-summary --cluster primary \\
        --from 2026-11-21T00:00Z --to 2026-11-21T23:00Z
    """
    require(from_, "--from", "the first instance of the window to rerun")
    require(to, "--to", "the last instance of the window to rerun")
    wanted = _statuses(status)
    scope = open_scope(repo, process, cluster, now)
    rows = [row for row in scope.rows(from_, to, with_missing=False) if row.status in wanted]
    if not rows:
        typer.echo(f"No instance of {scope.owner} from {from_} to {to} is {' or '.join(wanted)}: nothing to rerun.",
                   err=True)
        return
    submit = [spark_submit(), *submit_arguments(None, scope.cluster), process_entrypoint()]
    commands = [[*submit, "--repo", str(repo), "--process", scope.process.name, "--cluster", scope.cluster.name,
                 "--time", format_timestamp(row.time), "--force"] for row in rows]
    if not execute:
        for command in commands:
            typer.echo(shlex.join(command))
        return
    for program, what in ((submit[0], "spark-submit"), (submit[-1], "entrypoints/process.py")):
        if not (Path(program).is_file() if os.sep in program else shutil.which(program)):
            raise UsageError(f"Cannot run the reruns: {what} is not found at {program}; print the commands "
                             "without --execute and run them where it is.")
    environment = {"PYSPARK_PYTHON": sys.executable, **os.environ}
    codes = []
    for index, command in enumerate(commands, 1):
        typer.echo(f"toolkit rerun ({index}/{len(commands)}): {shlex.join(command)}")
        sys.stdout.flush()
        codes.append(subprocess.run(command, env=environment, check=False).returncode)
        typer.echo(f"toolkit rerun ({index}/{len(commands)}): exit {codes[-1]}")
    code = worst(codes)
    if code:
        raise typer.Exit(code)
