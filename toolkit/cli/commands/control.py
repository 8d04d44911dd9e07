"""`toolkit suspend`, `toolkit resume`, `toolkit safemode`: the control switches in a local cluster's ledger.

A switch is a file in the ledger (`control/safemode`, `control/suspended/<kind>/<name>`) saying since when,
by whom and why; the entrypoints read it before touching anything. Setting a switch that is already set (or
clearing one that is not) changes nothing and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import ClusterName, Repo, require
from toolkit.cli.ledger_access import Now, open_ledger, operator, wall_clock_now
from toolkit.entities.model import Cluster
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.instances.grids import require_on_cluster
from toolkit.ledger.control import Switch
from toolkit.ledger.store import Ledger

Entity = Annotated[str, typer.Argument(help="A process or feed name of the repo.", show_default=False)]
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


def suspend_command(
    entity: Entity,
    repo: Repo = Path("."),
    cluster: ClusterName = None,
    kind: KindOption = None,
    reason: Reason = None,
) -> None:
    """Suspend a process (process.py exits 4 for it) or a feed (retention and replication exit 4 for it) on one
    cluster, until `toolkit resume`.

    \b
    toolkit suspend hourly-clicks-summary --repo conf --cluster primary --reason "bad upstream data"
    """
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
    entity: Entity,
    repo: Repo = Path("."),
    cluster: ClusterName = None,
    kind: KindOption = None,
) -> None:
    """Resume a suspended process or feed on one cluster: its actions run again.

    \b
    toolkit resume hourly-clicks-summary --repo conf --cluster primary
    """
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
