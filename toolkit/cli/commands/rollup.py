"""`toolkit ledger-rollup`: move the closed instances of months gone by into one roll-up file per process and month
(toolkit/core/ledger/rollups.py), so that the ledger's size and its reads stay proportional to the months asked for.
A schedule calls it (daily, say); readers never need it to have run, they read folders and roll-ups alike."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import ClusterName, Repo, require
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.rollups import roll_up
from toolkit.core.ledger.store import Ledger
from toolkit.errors import BlockedError
from toolkit.services.runtime.cluster_files import cluster_file_system
from toolkit.views.ledger_access import Now


def rollup_command(
    repo: Repo = Path("."),
    process: Annotated[str | None, typer.Option(
        "--process", help="One process; default: every process of the repo on the cluster.")] = None,
    cluster: ClusterName = None,
    now: Annotated[str | None, typer.Option("--now", help=(
        "Roll up the months that ended by this time, yyyy-MM-ddTHH:mmZ (UTC). Default: the wall clock, so every "
        "month before the current one."))] = None,
) -> None:
    """Roll up the closed instances (SUCCEEDED, FAILED, TIMEDOUT, SKIPPED, KILLED, no run holding them) of the
    months before --now into `processes/<process>/rollups/<yyyyMM>.json`, then delete their folders. Every reader
    (`toolkit status`, `summary`, `rerun`, the runner, the sweep, lineage) reads roll-ups and folders alike, a
    folder winning: a rerun of a rolled-up instance writes a folder again, which the next roll-up takes in.

    Exit 0; 5 when another roll-up of a process is running (it is named; the other processes are rolled up).

    \b
    0 3 * * *  toolkit ledger-rollup --repo /srv/conf --cluster primary
    """
    cluster_name = require(cluster, "--cluster", "the cluster whose ledger to roll up")
    before = Now.of(now).time
    wanted = [EntityRef(Kind.CLUSTER, cluster_name)] + ([EntityRef(Kind.PROCESS, process)] if process else [])
    config = ConfigRepo.load_only(repo, wanted) if process is not None else ConfigRepo.load(repo)
    on = config.cluster(cluster_name)
    if process is not None:
        require_on_cluster(config.process(process), on.name)
        names = [process]
    else:
        names = [name for name, p in sorted(config.processes.items()) if p.cluster(on.name) is not None]
    ledger = Ledger.of(cluster_file_system(on), on)
    run_id, blocked, rolled = uuid.uuid4().hex[:12], 0, 0
    for name in names:
        try:
            report = roll_up(ledger, name, before, run_id)
        except BlockedError as err:
            typer.echo(str(err), err=True)
            blocked += 1
            continue
        rolled += report.rolled
        if report.rolled or report.kept:
            typer.echo(f"{name}: {report.rolled} instance(s) rolled up, {report.kept} kept in their folders "
                       f"(open or running), months {', '.join(report.months or []) or '-'}")
    typer.echo(f"ledger-rollup: {rolled} instance(s) of {len(names)} process(es) rolled up on cluster '{on.name}'")
    if blocked:
        raise typer.Exit(BlockedError.exit_code)
