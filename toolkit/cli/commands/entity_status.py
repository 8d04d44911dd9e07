"""`toolkit entity-status`: one process's or feed's state on each of its clusters (Falcon's `entity -status`), read
from the repo and the clusters' ledgers without Spark."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.control import Entity, KindOption, entity_kind
from toolkit.cli.commands.ledger import Format, NowOption, Repo, check_format
from toolkit.cli.ledger_text import NONE, table
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Feed, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.errors import ToolkitError
from toolkit.views.ledger_access import Now, open_ledger
from toolkit.views.status.entity_states import EntityState, entity_state

UNKNOWN = "UNKNOWN"  # Falcon's word when the status cannot be read


def _cluster_row(config: ConfigRepo, entity: Process | Feed, cluster: str, now: Now, *, strict: bool) \
        -> dict[str, object]:
    """The entity's state on one cluster as JSON; a cluster whose ledger cannot be read is UNKNOWN with the
    sentence that says why (`strict`, the one cluster asked for: the error is raised)."""
    try:
        on = config.cluster(cluster)
        state: EntityState = entity_state(config, entity, on, open_ledger(on, now), now)
    except ToolkitError as err:
        if strict:
            raise
        validity = require_on_cluster(entity, cluster).validity
        return {"kind": entity.kind.value, "name": entity.name, "cluster": cluster, "state": UNKNOWN,
                "validity": {"start": format_timestamp(validity.start), "end": format_timestamp(validity.end)},
                "suspended": None, "tags": dict(entity.tags),
                "pipelines": list(entity.pipelines) if isinstance(entity, Process) else [],
                "last_instance": None, "error": str(err)}
    return {**state.to_json(), "error": None}


def _lines(answer: dict[str, object]) -> Iterator[str]:
    clusters: list[dict[str, object]] = answer["clusters"]  # type: ignore[assignment]
    yield f"{answer['kind']} {answer['name']} ({answer['file']}), on {len(clusters)} cluster(s)"

    def detail(row: dict[str, object]) -> str:
        suspended = row["suspended"]
        if isinstance(suspended, dict):
            since, by = suspended["since"] or "an unknown time", suspended["by"] or "an unknown user"
            return f"suspended since {since} by {by}" + (f": {suspended['reason']}" if suspended["reason"] else "")
        return str(row["error"]) if row["error"] else NONE

    def last(row: dict[str, object]) -> str:
        instance = row["last_instance"]
        return f"{instance['time']} {instance['status']}" if isinstance(instance, dict) else NONE

    def validity(row: dict[str, object]) -> str:
        window: dict[str, str] = row["validity"]  # type: ignore[assignment]
        return f"{window['start']}..{window['end']}"

    yield from table(("CLUSTER", "STATE", "VALIDITY", "LAST INSTANCE", "DETAIL"),
                     ((str(row["cluster"]), str(row["state"]), validity(row), last(row), detail(row))
                      for row in clusters))


def entity_status_command(
    entity: Entity,
    repo: Repo = Path("."),
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="One of the entity's clusters; default: every cluster it is defined on.")] = None,
    kind: KindOption = None,
    now: NowOption = None,
    format_: Format = "text",
) -> None:
    """The state of a process or feed (Falcon's `entity -status`): the file that defines it, and on each of its
    clusters RUNNING, SUSPENDED (with since, by whom and why) or COMPLETED (its validity there has ended), its
    validity, and its newest instance at or before now (a process: its status as `toolkit status` shows it; a
    feed: the kind of its last dataset event, published, replaced or evicted).

    A cluster whose ledger cannot be read (a file system the command line does not reach, a damaged switch) shows
    UNKNOWN and the sentence that says why, and the other clusters are still told; with --cluster, that error
    ends the call with its exit code. Falcon's SUBMITTED (defined, not scheduled) has no counterpart: whether
    your scheduler calls an entity is the schedule's to say (`toolkit schedule --check`).

    \b
    toolkit entity-status hourly-clicks-summary --repo conf
    toolkit entity-status clicks --repo conf --cluster primary --format json
    """
    check_format(format_)
    current = Now.of(now)
    config = ConfigRepo.load(repo)
    found = entity_kind(config, entity, kind)
    target: Process | Feed = config.process(entity) if found == "process" else config.feed(entity)
    if cluster is not None:
        require_on_cluster(target, config.cluster(cluster).name)
    names = [cluster] if cluster is not None else [on.name for on in target.clusters]
    try:
        shown = target.source_file.relative_to(config.root)
    except ValueError:
        shown = target.source_file
    answer: dict[str, object] = {"kind": found, "name": entity, "file": str(shown),
              "clusters": [_cluster_row(config, target, name, current, strict=cluster is not None) for name in names]}
    typer.echo(json.dumps(answer, indent=2) if format_ == "json" else "\n".join(_lines(answer)))
