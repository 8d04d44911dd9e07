"""`toolkit status`, `toolkit summary`, `toolkit running`: what the ledger of a local cluster says about a
process's instances, read without Spark."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.ledger_text import entity_lines, running_lines, status_lines, summary_lines
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import process_grid, require_on_cluster
from toolkit.core.ledger.records import STATUSES
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.views.ledger_access import NOW_HELP, Now, open_ledger
from toolkit.views.status.entity_states import Filters, list_states
from toolkit.views.status.instance_rows import (
    DEFAULT_INSTANCES,
    MAX_ROWS,
    MISSING_LIMIT,
    InstanceRow,
    count_statuses,
    instance_rows,
    window_times,
)

Repo = Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")]
ProcessName = Annotated[str | None, typer.Option("--process", help="The process (required).")]
ClusterName = Annotated[str | None, typer.Option(
    "--cluster", help="The cluster (required); its write endpoint is file://, or hdfs:// read through WebHDFS at "
                       "its readonly interface (docs/hdfs.md).")]
From = Annotated[str | None, typer.Option("--from", help=(
    f"First instance time, yyyy-MM-ddTHH:mmZ. Default: the {DEFAULT_INSTANCES} instances up to --to."))]
To = Annotated[str | None, typer.Option("--to", help="Last instance time (included). Default: now.")]
NowOption = Annotated[str | None, typer.Option("--now", help=NOW_HELP)]
Format = Annotated[str, typer.Option("--format", help="text (aligned columns) or json (scripts).")]


def check_format(format_: str) -> None:
    if format_ not in ("text", "json"):
        raise UsageError(f"Unknown --format {format_!r}: use text or json.")


def require(value: str | None, option: str, what: str) -> str:
    if value is None:
        raise UsageError(f"Give {option}: {what}.")
    return value


@dataclass(frozen=True)
class Scope:
    """A process on a cluster, with that cluster's ledger, as one call sees them."""

    repo: ConfigRepo
    process: Process
    cluster: Cluster
    ledger: Ledger
    now: Now

    @property
    def owner(self) -> str:
        return f"process '{self.process.name}' on cluster '{self.cluster.name}'"

    def rows(self, from_: str | None, to: str | None, *, with_missing: bool) -> list[InstanceRow]:
        grid = process_grid(self.process, self.cluster.name)
        times = window_times(grid, self.now.time, from_, to, self.owner)
        return instance_rows(self.repo, self.process, self.cluster, self.ledger, times, self.now.seconds,
                             with_missing=with_missing)


def open_scope(repo: Path, process: str | None, cluster: str | None, now: str | None) -> Scope:
    """Check the call, load the repo, find the process on the cluster and open the cluster's ledger."""
    process_name = require(process, "--process", "the process whose instances to read")
    cluster_name = require(cluster, "--cluster", "the cluster whose ledger to read")
    current = Now.of(now)
    config = ConfigRepo.load_only(repo, [EntityRef(Kind.PROCESS, process_name), EntityRef(Kind.CLUSTER, cluster_name)])
    entity, on = config.process(process_name), config.cluster(cluster_name)
    require_on_cluster(entity, on.name)
    return Scope(config, entity, on, open_ledger(on, current), current)


def status_command(
    repo: Repo = Path("."),
    process: Annotated[str | None, typer.Option(
        "--process", help="The process whose instances to list; without it, the processes and feeds of the "
                          "cluster are listed with their state.")] = None,
    cluster: ClusterName = None,
    from_: From = None,
    to: To = None,
    now: NowOption = None,
    format_: Format = "text",
    wide: Annotated[bool, typer.Option(
        "--wide", help="Lines as long as their content (default: cut to the terminal's width, COLUMNS, else 120).")
    ] = False,
    kind: Annotated[str | None, typer.Option(
        "--kind", help="Without --process: list only processes or only feeds (Falcon's -type).")] = None,
    tags: Annotated[list[str] | None, typer.Option(
        "--tags", help="Without --process: only entities with this tag, key=value; repeat it or separate with "
                       "commas: every tag given must be the entity's (Falcon's -tags).")] = None,
    pipeline: Annotated[list[str] | None, typer.Option(
        "--pipeline", help="Without --process: only processes in one of these pipelines (repeatable; feeds have "
                           "none; Falcon's -filterBy PIPELINES).")] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="Without --process: only entities whose name holds these letters in this order, case "
                       "ignored: a substring, or a subsequence as Falcon's -nameseq (hcs finds "
                       "hourly-clicks-summary).")] = None,
    state: Annotated[list[str] | None, typer.Option(
        "--state", help="Without --process: only entities in this state, RUNNING, SUSPENDED or COMPLETED "
                        "(repeatable; Falcon's -filterBy STATUS).")] = None,
    changed_since: Annotated[str | None, typer.Option(
        "--changed-since", metavar="REV", help=(
            "With --process: only the succeeded instances whose last success ran another definition of the process "
            "than git revision REV of the repo has (its YAML or workflow file differ; instances whose records "
            "say nothing are listed too): what a change left stale."))] = None,
) -> None:
    """One row per instance of a process on a cluster: its time, status, attempts, start, duration and a detail:
    while it waits, the input instances it lacks (by feed: one named, several counted with their first and last
    time); when it failed or timed out, the error. Without --process: one row per process and feed of the
    cluster with its state (RUNNING, SUSPENDED or COMPLETED, see `toolkit entity-status`), newest instance,
    pipelines and tags, narrowed by Falcon's `entity -list`/`-search` filters (--kind, --tags, --pipeline, --name,
    --state).

    The status is the ledger's, except that a record saying RUNNING whose lock lease has expired is shown
    KILLED (the run died; the next call takes it over), and that an instance without a record whose time has
    come is WAITING. Instances after now are not listed. The missing inputs of never-run WAITING instances are
    resolved against the cluster's file system for the newest {limit} of them; table inputs show "not checked
    (table input)", as the metastore is not opened. At most {rows} rows: a larger window is refused.

    \b
    toolkit status --repo conf --process hourly-clicks-summary --cluster primary
    toolkit status --repo conf --process hourly-clicks-summary --cluster primary \\
        --from 2026-11-21T00:00Z --to 2026-11-21T23:00Z --format json
    toolkit status --repo conf --cluster primary --tags owner=web-analytics --state SUSPENDED
    """
    check_format(format_)
    filters = Filters.of(kind, tags or (), pipeline or (), name, state or ())
    cluster = require(cluster, "--cluster", "the cluster whose ledger to read")
    if process is None:
        if from_ is not None or to is not None:
            raise UsageError("--from and --to choose instances of a process: give --process, or leave them out to "
                             f"list the entities of cluster '{cluster}'.")
        if changed_since is not None:
            raise UsageError("--changed-since lists instances of a process: give --process.")
        _entity_listing(repo, cluster, now, format_, wide, filters)
        return
    if filters.given:
        raise UsageError("--kind, --tags, --pipeline, --name and --state choose entities of a cluster: leave out "
                         "--process to list them, or leave them out to list the instances of the process.")
    scope = open_scope(repo, process, cluster, now)
    rows = scope.rows(from_, to, with_missing=True)
    if changed_since is not None:
        from toolkit.views.status.changed_since import changed_since as stale
        from toolkit.views.status.changed_since import definition_at

        rows = stale(rows, definition_at(repo, changed_since, scope.process.name))
    if format_ == "json":
        typer.echo(json.dumps([row.to_json() for row in rows], indent=2))
    else:
        width = None if wide else shutil.get_terminal_size((120, 24)).columns
        typer.echo("\n".join(status_lines(rows, width)))


status_command.__doc__ = (status_command.__doc__ or "").format(limit=MISSING_LIMIT, rows=f"{MAX_ROWS:,}")


def _entity_listing(repo: Path, cluster: str, now: str | None, format_: str, wide: bool, filters: Filters) -> None:
    current = Now.of(now)
    config = ConfigRepo.load(repo)
    on = config.cluster(cluster)
    states = list_states(config, on, open_ledger(on, current), current, filters)
    if format_ == "json":
        typer.echo(json.dumps([entity.to_json() for entity in states], indent=2))
    else:
        width = None if wide else shutil.get_terminal_size((120, 24)).columns
        typer.echo("\n".join(entity_lines(states, width)))


def summary_of(scope: Scope, rows: list[InstanceRow]) -> dict[str, object]:
    return {"process": scope.process.name, "cluster": scope.cluster.name,
            "from": format_timestamp(rows[0].time) if rows else None,
            "to": format_timestamp(rows[-1].time) if rows else None,
            "total": len(rows), "counts": count_statuses(rows, STATUSES)}


def summary_command(
    repo: Repo = Path("."),
    process: ProcessName = None,
    cluster: ClusterName = None,
    from_: From = None,
    to: To = None,
    now: NowOption = None,
    format_: Format = "text",
) -> None:
    """How many instances of a process on a cluster are in each status, over the rows `toolkit status` lists
    for the same window (every status is counted, zeros included).

    \b
    toolkit summary --repo conf --process hourly-clicks-summary --cluster primary --from 2026-11-01T00:00Z
    """
    check_format(format_)
    scope = open_scope(repo, process, cluster, now)
    summary = summary_of(scope, scope.rows(from_, to, with_missing=False))
    typer.echo(json.dumps(summary, indent=2) if format_ == "json" else "\n".join(summary_lines(summary)))


def _leases(ledger: Ledger, processes: list[Process]) -> Iterator[dict[str, object]]:
    for entity in processes:
        leases = ledger.running(entity.name)
        for lease in sorted(leases, key=lambda lease: (lease.details.time or "", lease.run_id)):
            yield {"process": entity.name, "time": lease.details.time, "run_id": lease.run_id,
                   "holder": lease.holder, "expires": lease.expires_text}


def running_command(
    repo: Repo = Path("."),
    process: Annotated[str | None, typer.Option(
        "--process", help="One process; default: every process of the repo on the cluster.")] = None,
    cluster: ClusterName = None,
    now: NowOption = None,
    format_: Format = "text",
) -> None:
    """The instances running now: the live leases of the processes' `parallel` slots (process, instance time,
    run id, holder host:pid, lease expiry). A killed run's lease stops being live once it expires.

    \b
    toolkit running --repo conf --cluster primary
    """
    check_format(format_)
    cluster_name = require(cluster, "--cluster", "the cluster whose running instances to list")
    current = Now.of(now)
    wanted = [EntityRef(Kind.CLUSTER, cluster_name)] + ([EntityRef(Kind.PROCESS, process)] if process else [])
    config = ConfigRepo.load_only(repo, wanted) if process is not None else ConfigRepo.load(repo)
    on = config.cluster(cluster_name)
    if process is not None:
        entity = config.process(process)
        require_on_cluster(entity, on.name)
        processes = [entity]
    else:
        processes = [p for _, p in sorted(config.processes.items()) if p.cluster(on.name) is not None]
    ledger = open_ledger(on, current)
    leases = list(_leases(ledger, processes))
    typer.echo(json.dumps(leases, indent=2) if format_ == "json" else "\n".join(running_lines(leases)))
