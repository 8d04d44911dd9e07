"""`toolkit suspend`, `toolkit resume`, `toolkit safemode`: the control switches in a local cluster's ledger.

A switch is a file in the ledger (`control/safemode`, `control/suspended/<kind>/<name>`) saying since when,
by whom and why; the entrypoints read it before touching anything. Setting a switch that is already set (or
clearing one that is not) changes nothing and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.instance_holds import InstancesAsked, hold_instances, release_instances, select
from toolkit.cli.commands.ledger import ClusterName, NowOption, Repo, require
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.control import Switch
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.views.ledger_access import Now, open_ledger, operator, wall_clock_now

Entity = Annotated[str, typer.Argument(help="A process or feed name of the repo.", show_default=False)]
EntityOrInstances = Annotated[str | None, typer.Argument(
    help="A process or feed name of the repo (not with --time or --from/--to).", show_default=False)]
ProcessOption = Annotated[str | None, typer.Option(
    "--process", help="With --time or --from/--to: the process whose instance(s) to hold or release.")]
TimeOption = Annotated[str | None, typer.Option(
    "--time", help="One instance of --process, yyyy-MM-ddTHH:mmZ (UTC), instead of the whole entity.")]
FromOption = Annotated[str | None, typer.Option("--from", help="With --to: the first instance of --process.")]
ToOption = Annotated[str | None, typer.Option("--to", help="With --from: the last instance of --process (included).")]
KindOption = Annotated[str | None, typer.Option(
    "--kind", help="process or feed: needed only when a process and a feed share the name.")]
Reason = Annotated[str | None, typer.Option("--reason", help="Why, recorded in the switch for the next operator.")]

EFFECT = {"process": "process.py exits 4 (skipped) for its instances",
          "feed": "retention and replication exit 4 (skipped) for it"}


def entity_kind(config: ConfigRepo, name: str, kind: str | None) -> str:
    """`process` or `feed`: what the name is in the repo (a UsageError listing what exists otherwise)."""
    if kind is not None:
        if kind not in EFFECT:
            raise UsageError(f"Unknown --kind {kind!r}: use process or feed.")
        (config.process if kind == "process" else config.feed)(name)  # a UsageError naming the known ones
        return kind
    found = [k for k, named in (("process", config.processes), ("feed", config.feeds)) if name in named]
    if not found:
        processes = ", ".join(sorted(config.processes)) or "none"
        feeds = ", ".join(sorted(config.feeds)) or "none"
        raise UsageError(f"No process or feed is named '{name}' in repo {config.display}: its processes are "
                         f"{processes}; its feeds are {feeds}.")
    if len(found) > 1:
        raise UsageError(f"'{name}' names both a process and a feed in repo {config.display}: give --kind process "
                         "or --kind feed.")
    return found[0]


def _switch_target(repo: Path, entity: str, kind: str | None, cluster: str | None) -> tuple[str, Cluster, Ledger]:
    cluster_name = require(cluster, "--cluster", "the cluster whose ledger holds the switch")
    config = ConfigRepo.load(repo)
    found = entity_kind(config, entity, kind)
    on = config.cluster(cluster_name)
    require_on_cluster(config.process(entity) if found == "process" else config.feed(entity), on.name)
    return found, on, open_ledger(on, Now.of(None))


def _set_by(switch: Switch) -> str:
    return f"since {switch.since or 'an unknown time'} by {switch.by or 'an unknown user'}" + (
        f": {switch.reason}" if switch.reason else "")


def _entity_asked(entity: str | None, process: str | None, time: str | None, first: str | None,
                  last: str | None, kind: str | None) -> str | None:
    """The entity the call names, or None when it names instances (--time, --from/--to); UsageError for a mix."""
    if time is None and first is None and last is None:
        if process is not None:
            raise UsageError(f"--process {process} names instances with --time T or --from A --to B; to suspend or "
                             f"resume the whole process, name it: `toolkit suspend {process} --cluster C`.")
        if entity is None:
            raise UsageError("Name the process or feed to suspend or resume, or give --process P with --time T (or "
                             "--from A --to B) for instances of a process.")
        return entity
    if entity is not None or kind is not None:
        raise UsageError("--time and --from/--to are for instances of a process: give it with --process, not as an "
                         "argument (and without --kind).")
    return None


def suspend_command(
    entity: EntityOrInstances = None,
    repo: Repo = Path("."),
    cluster: ClusterName = None,
    kind: KindOption = None,
    reason: Reason = None,
    process: ProcessOption = None,
    time: TimeOption = None,
    from_: FromOption = None,
    to: ToOption = None,
    now: NowOption = None,
) -> None:
    """Suspend a process (process.py exits 4 for it) or a feed (retention and replication exit 4 for it) on one
    cluster, until `toolkit resume`.

    With --process and --time (or --from/--to), hold single instances instead (Falcon's `instance -suspend`): a
    held instance is not started (process.py, the trigger sweep and windows exit 4 for it, naming the hold). An
    `engine: oozie` or `pig` instance that is running is held too: its run suspends its Oozie workflow job at its
    next poll and keeps following it until resumed (the time held does not count against the timeout). Nothing can
    pause a running Spark job: for the other engines a running instance is refused (exit 1, nothing held); use
    `toolkit kill` or wait for it to end.

    \b
    toolkit suspend hourly-clicks-summary --repo conf --cluster primary --reason "bad upstream data"
    toolkit suspend --repo conf --process hourly-clicks-summary --cluster primary --time 2026-11-21T10:00Z
    """
    entity = _entity_asked(entity, process, time, from_, to, kind)
    if entity is None:
        hold_instances(select(repo, InstancesAsked(process, cluster, time, from_, to, now), "suspend"), reason)
        return
    found, on, ledger = _switch_target(repo, entity, kind, cluster)
    current = ledger.control.suspension(found, entity)
    if current.on:
        typer.echo(f"The {found} '{entity}' is already suspended on cluster '{on.name}' ({_set_by(current)}): "
                   "nothing changed.")
        return
    ledger.control.set_suspended(found, entity, True, wall_clock_now(), operator(), reason)
    typer.echo(f"Suspended {found} '{entity}' on cluster '{on.name}': {EFFECT[found]} until `toolkit resume "
               f"{entity} --cluster {on.name}`.")


def resume_command(
    entity: EntityOrInstances = None,
    repo: Repo = Path("."),
    cluster: ClusterName = None,
    kind: KindOption = None,
    process: ProcessOption = None,
    time: TimeOption = None,
    from_: FromOption = None,
    to: ToOption = None,
    now: NowOption = None,
) -> None:
    """Resume a suspended process or feed on one cluster: its actions run again.

    With --process and --time (or --from/--to), release held instances (Falcon's `instance -resume`): process.py
    runs them again, and the run of a running `engine: oozie` or `pig` instance resumes its Oozie workflow job at
    its next poll.

    \b
    toolkit resume hourly-clicks-summary --repo conf --cluster primary
    toolkit resume --repo conf --process hourly-clicks-summary --cluster primary --time 2026-11-21T10:00Z
    """
    entity = _entity_asked(entity, process, time, from_, to, kind)
    if entity is None:
        release_instances(select(repo, InstancesAsked(process, cluster, time, from_, to, now), "resume"))
        return
    found, on, ledger = _switch_target(repo, entity, kind, cluster)
    current = ledger.control.suspension(found, entity)
    if not current.on:
        typer.echo(f"The {found} '{entity}' is not suspended on cluster '{on.name}': nothing changed.")
        return
    ledger.control.set_suspended(found, entity, False, wall_clock_now(), operator())
    runs = "process.py runs its instances" if found == "process" else "retention and replication run for it"
    typer.echo(f"Resumed {found} '{entity}' on cluster '{on.name}' (suspended {_set_by(current)}): {runs} again.")


def safemode_command(
    action: Annotated[str, typer.Argument(help="on, off or status.", show_default=False)],
    repo: Repo = Path("."),
    cluster: ClusterName = None,
    reason: Reason = None,
) -> None:
    """Safemode of a cluster: while on, every action (process.py, retention, replication) exits 5 before
    touching data. `status` prints whether it is on, since when, by whom and why (exit 0 either way).

    \b
    toolkit safemode on --repo conf --cluster primary --reason "namenode maintenance"
    toolkit safemode status --repo conf --cluster primary
    toolkit safemode off --repo conf --cluster primary
    """
    if action not in ("on", "off", "status"):
        raise UsageError(f"Unknown safemode action {action!r}: use on, off or status.")
    cluster_name = require(cluster, "--cluster", "the cluster whose safemode to read or set")
    on = ConfigRepo.load(repo).cluster(cluster_name)
    ledger = open_ledger(on, Now.of(None))
    current = ledger.control.safemode()
    if action == "status":
        typer.echo(f"safemode on for cluster '{on.name}' ({_set_by(current)})" if current.on
                   else f"safemode off for cluster '{on.name}'")
    elif action == "on":
        if current.on:
            typer.echo(f"Safemode is already on for cluster '{on.name}' ({_set_by(current)}): nothing changed.")
            return
        ledger.control.set_safemode(True, wall_clock_now(), operator(), reason)
        typer.echo(f"Safemode is on for cluster '{on.name}': every action exits 5 (blocked) before touching data "
                   "until `toolkit safemode off`.")
    else:
        if not current.on:
            typer.echo(f"Safemode is not on for cluster '{on.name}': nothing changed.")
            return
        ledger.control.set_safemode(False, wall_clock_now(), operator())
        typer.echo(f"Safemode is off for cluster '{on.name}' (it was on {_set_by(current)}): actions run again.")
