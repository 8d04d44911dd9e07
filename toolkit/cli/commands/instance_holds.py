"""`toolkit suspend|resume --process P --time T` (or `--from A --to B`): hold single process instances, Falcon's
`instance -suspend` and `-resume` (toolkit/core/ledger/holds.py). A held instance is not started: process.py, the
trigger sweep and a `--from/--to` window exit 4 (SKIPPED) for it, naming the hold. A running `engine: oozie` or
`pig` instance is held too: its run suspends its Oozie workflow job at its next poll and resumes it once the hold is
removed. Nothing can pause a running Spark job: suspending a running instance of another engine is refused (exit
1), holding nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import typer

from toolkit.cli.commands.ledger import require
from toolkit.cli.process_instance import instance_at, process_on_cluster
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.model import Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.holds import Hold
from toolkit.core.ledger.store import Ledger
from toolkit.errors import ToolkitError, UsageError
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.statuses import Status
from toolkit.views.ledger_access import Now, open_ledger, operator, wall_clock_now

MAX_INSTANCES = 1000  # the most instances one call holds or resumes


@dataclass(frozen=True)
class InstanceSelection:
    """What `--process`, `--cluster`, `--time` or `--from/--to` name."""

    process: Process
    cluster: str
    times: list[datetime]
    ledger: Ledger
    now: Now

    def owner(self, t: datetime) -> str:
        return f"the instance {format_timestamp(t)} of process '{self.process.name}' on cluster '{self.cluster}'"

    def resume_command(self, t: datetime) -> str:
        return f"toolkit resume --process {self.process.name} --cluster {self.cluster} --time {format_timestamp(t)}"


@dataclass(frozen=True)
class InstancesAsked:
    """The instances a call names, as its options give them: `--process`, `--cluster`, then `--time`, or `--from`
    and `--to`; `--now`."""

    process: str | None
    cluster: str | None
    time: str | None
    first: str | None
    last: str | None
    now: str | None = None


def select(repo: Path, asked: InstancesAsked, verb: str) -> InstanceSelection:
    """The instances named, each on the process's grid on the cluster (UsageError otherwise)."""
    process, cluster, time, first, last = asked.process, asked.cluster, asked.time, asked.first, asked.last
    name = require(process, "--process", f"the process whose instance(s) to {verb}")
    entity, on, grid = process_on_cluster(ConfigRepo.load(repo), name, cluster)
    if (time is None) == (first is None and last is None):
        raise UsageError(f"Give either --time T or --from A --to B: the instance(s) of process '{entity.name}' to "
                         f"{verb}.")
    if time is not None:
        times = [instance_at(grid, time, entity.name, on.name)]
    else:
        if first is None or last is None:
            raise UsageError(f"Give both --from and --to: the first and last instance of process '{entity.name}' "
                             f"to {verb}.")
        begin, end = parse_timestamp(first, "--from"), parse_timestamp(last, "--to")
        if begin > end:
            raise UsageError("--from is after --to: give the first instance, then the last.")
        count = grid.count_between(begin, end)
        if count == 0:
            raise UsageError(f"No instance of process '{entity.name}' on cluster '{on.name}' lies between {first} "
                             f"and {last}.")
        if count > MAX_INSTANCES:
            raise UsageError(f"{first} .. {last} holds {count} instances of process '{entity.name}', more than "
                             f"{MAX_INSTANCES}: give a smaller window, or suspend the process itself (`toolkit suspend "
                             f"{entity.name} --cluster {on.name}`).")
        times = list(grid.between(begin, end))
    current = Now.of(asked.now)
    return InstanceSelection(entity, on.name, times, open_ledger(on, current), current)


def _running(selection: InstanceSelection, t: datetime) -> bool:
    """A live run holds the instance and has an attempt under way (not merely waiting for its inputs)."""
    lease = selection.ledger.instance_lock(selection.process.name, t).current()
    if lease is None or not lease.live(selection.now.seconds):
        return False
    record = selection.ledger.instance(selection.process.name, t)
    return record is not None and record.status == Status.RUNNING


def hold_instances(selection: InstanceSelection, reason: str | None) -> None:
    """Hold every instance selected; refused, holding nothing, when one is running on an engine that cannot pause.
    The holds are written, then the running attempts looked for again, as a run records RUNNING, then looks for a
    hold (ProcessRunner._announce_start): whatever the order, one of the two sees the other. A run seen only in that
    second look has its holds withdrawn (those this call wrote and that are still its own: same token)."""
    process, ledger = selection.process, selection.ledger
    pausable = engine_of(process).oozie
    if not pausable:
        _refuse_running([t for t in selection.times if _running(selection, t)], selection)
    hold = Hold.placed(wall_clock_now(), operator(), reason)
    already = {t: ledger.hold(process.name, t) for t in selection.times}
    placed = [t for t in selection.times if already[t] is None]
    for t in placed:
        ledger.set_hold(process.name, t, hold)
    running = [t for t in selection.times if _running(selection, t)]
    if running and not pausable:
        for t in placed:
            if ledger.hold(process.name, t) == hold:
                ledger.clear_hold(process.name, t)
        _refuse_running(running, selection)
    for t in selection.times:
        current = already[t]
        if current is not None:
            typer.echo(f"{_capital(selection.owner(t))} is already suspended ({current.sentence()}): nothing changed.")
        elif t in running:
            typer.echo(f"Suspended {selection.owner(t)}: its run suspends its Oozie workflow job at its next poll "
                       "(every oozie.client.poll-seconds) and keeps following it until "
                       f"`{selection.resume_command(t)}`.")
        else:
            typer.echo(f"Suspended {selection.owner(t)}: process.py does not start it (exit 4, skipped) until "
                       f"`{selection.resume_command(t)}`.")


def _refuse_running(running: list[datetime], selection: InstanceSelection) -> None:
    """ToolkitError (exit 1) naming the first of `running`, if any: nothing can pause a running Spark job."""
    if not running:
        return
    t, process = running[0], selection.process
    raise ToolkitError(
        f"{_capital(selection.owner(t))} is running on engine "
        f"{process.workflow.engine}, and nothing can pause a running Spark job: nothing was suspended; end it "
        f"with `toolkit kill --process {process.name} --cluster {selection.cluster} --time {format_timestamp(t)}` "
        "or wait for it to end, then suspend it.")


def release_instances(selection: InstanceSelection) -> None:
    process, ledger = selection.process, selection.ledger
    for t in selection.times:
        current = ledger.hold(process.name, t)
        if current is None:
            typer.echo(f"{_capital(selection.owner(t))} is not suspended: nothing changed.")
            continue
        ledger.clear_hold(process.name, t)
        after = "its run resumes its Oozie workflow job at its next poll" if _running(selection, t) \
            else "process.py runs it again"
        typer.echo(f"Resumed {selection.owner(t)} ({current.sentence()}): {after}.")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
