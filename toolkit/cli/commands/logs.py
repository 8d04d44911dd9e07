"""`toolkit logs`: the stderr a process instance's attempt kept beside its record in the ledger
(toolkit/core/ledger/attempt_logs.py), read without Spark."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import NowOption, Repo
from toolkit.cli.process_instance import instance_at, process_on_cluster
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.views.ledger_access import Now, open_ledger


def logs_command(
    repo: Repo = Path("."),
    process: Annotated[str | None, typer.Option("--process", help="The process (required).")] = None,
    time: Annotated[str | None, typer.Option(
        "--time", help="The instance time, yyyy-MM-ddTHH:mmZ (UTC) (required).")] = None,
    attempt: Annotated[int | None, typer.Option(
        "--attempt", help="The attempt, from 1 (Falcon's -runid counts reruns). Default: the newest.")] = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="The cluster (file://, or hdfs:// through WebHDFS). Default: the process's only one.")]
    = None,
    now: NowOption = None,
) -> None:
    """What an attempt of a process instance wrote to stderr (Falcon's `instance -logs`), as process.py kept it
    beside the attempt's record in the cluster's ledger: the runner's sentences, the workflow's prints and
    tracebacks, and an `engine: spark` application's whole output (the Spark JVM's own log lines inside process.py
    are not in it). At most 512 KiB an attempt: the first 64 KiB and the newest 448 KiB, a line marking what was
    rotated out between; the values of passwords, secrets, tokens and keys are masked.

    The log goes to stdout; one line on stderr says which attempt it is (its status, run, start and end). An
    instance without attempts, an attempt that does not exist, or one that kept no log (a run killed before its
    attempt ended, a run of a toolkit before logs were kept, an instance rolled up since: a roll-up keeps the
    records, not the logs) is one sentence, exit 2.

    \b
    toolkit logs --repo conf --process hourly-clicks-summary --time 2026-11-21T10:00Z
    toolkit logs --repo conf --process hourly-clicks-summary --time 2026-11-21T10:00Z --attempt 1 | less
    """
    if process is None:
        raise UsageError("Give --process P (and --time T): the process whose instance's log to print.")
    if time is None:
        raise UsageError(f"Give --time T, the time (yyyy-MM-ddTHH:mmZ) of the instance of process '{process}' "
                         "whose log to print.")
    if attempt is not None and attempt < 1:
        raise UsageError(f"--attempt {attempt} is no attempt: attempts count from 1.")
    wanted = [EntityRef(Kind.PROCESS, process)] + ([EntityRef(Kind.CLUSTER, cluster)] if cluster else [])
    config = ConfigRepo.load_only(repo, wanted) if cluster else ConfigRepo.load(repo)
    entity, on, grid = process_on_cluster(config, process, cluster)
    t = instance_at(grid, time, entity.name, on.name)
    ledger = open_ledger(on, Now.of(now))
    owner = f"process '{entity.name}' at {format_timestamp(t)} on cluster '{on.name}'"
    attempts = {record.attempt: record for record in ledger.attempts(entity.name, t)}
    if not attempts:
        raise UsageError(f"No attempt of {owner} is recorded: `toolkit status` (or `toolkit triage`) says why.")
    number = attempt if attempt is not None else max(attempts)
    if number not in attempts:
        raise UsageError(f"The {owner} has no attempt {number}: its attempts are "
                         f"{', '.join(str(n) for n in sorted(attempts))}.")
    record = attempts[number]
    data = ledger.attempt_log(entity.name, t, number)
    if data is None:
        raise UsageError(f"Attempt {number} of {owner} ({record.status}) kept no stderr: its run was killed before "
                         "the attempt ended, a toolkit before logs were kept ran it, or the instance was rolled up "
                         "since.")
    typer.echo(f"{owner}, attempt {number} of {max(attempts)}: {record.status}, run {record.run_id}, "
               f"{record.started or '?'} .. {record.ended or 'not ended'}", err=True)
    sys.stdout.write(data.decode("utf-8", "replace"))
    sys.stdout.flush()
