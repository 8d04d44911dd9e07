"""`toolkit kill`: end a running process instance (Falcon's `instance -kill`) through the ledger: a request beside the
instance's lock, naming the run that holds it (toolkit/core/ledger/kill_requests.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import NowOption, Repo
from toolkit.cli.process_instance import instance_at, process_on_cluster
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.kill_requests import KillRequest
from toolkit.errors import SkippedError, UsageError
from toolkit.views.ledger_access import Now, open_ledger, operator, wall_clock_now


def kill_command(
    repo: Repo = Path("."),
    process: Annotated[str | None, typer.Option("--process", help="The process (required).")] = None,
    time: Annotated[str | None, typer.Option(
        "--time", help="The instance time, yyyy-MM-ddTHH:mmZ (UTC) (required).")] = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="The cluster (file://, or hdfs:// through WebHDFS). Default: the process's only one.")]
    = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why, recorded with the KILLED attempt.")] = None,
    now: NowOption = None,
) -> None:
    """End a running process instance (Falcon's `instance -kill`): the run holding the instance's lock is asked,
    through a request beside that lock in the cluster's ledger, to stop. It reads the request when it next renews
    its lease (every third of it: 20 s by default), before every publication and, while it waits for its inputs, at
    its next poll: it cancels its Spark jobs and ends
    an `engine: spark` application's spark-submit, discards its staging, publishes nothing, records the attempt and
    the instance KILLED, does not retry, and process.py exits 1 with status KILLED. `toolkit rerun` lists the
    instance; a new run of it ignores the request.

    An instance no live run holds is not running: one sentence, exit 4 (nothing to kill).

    \b
    toolkit kill --repo conf --process hourly-clicks-summary --time 2026-11-21T10:00Z --reason "wrong input"
    """
    if process is None:
        raise UsageError("Give --process P (and --time T): the process whose running instance to kill.")
    if time is None:
        raise UsageError(f"Give --time T, the time (yyyy-MM-ddTHH:mmZ) of the running instance of process "
                         f"'{process}' to kill.")
    entity, on, grid = process_on_cluster(ConfigRepo.load(repo), process, cluster)
    t = instance_at(grid, time, entity.name, on.name)
    current = Now.of(now)
    ledger = open_ledger(on, current)
    owner = f"process '{entity.name}' at {format_timestamp(t)} on cluster '{on.name}'"
    lease = ledger.instance_lock(entity.name, t).current()
    if lease is None or not lease.live(current.seconds):
        raise SkippedError(f"The {owner} is not running (no live run holds its lock): nothing to kill.")
    ledger.request_kill(entity.name, t, KillRequest(lease.run_id, wall_clock_now(), operator(), reason))
    typer.echo(f"Asked run {lease.run_id} ({lease.holder}) of {owner} to stop: it does at its next lease renewal "
               "(every third of its lease) or before it publishes, publishes nothing and records KILLED.")
