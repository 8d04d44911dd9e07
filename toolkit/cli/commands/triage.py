"""`toolkit triage`: why an instance is not done, in one answer (toolkit/views/triage.py), without Spark."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import Format, NowOption, Repo, check_format
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.model import Feed, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid, process_grid, require_on_cluster
from toolkit.errors import UsageError
from toolkit.views.ledger_access import Now, open_ledger
from toolkit.views.triage import MAX_NODES, Node, Triage, Walk


def _lines(triage: Triage) -> Iterator[str]:
    causes = triage.causes
    start = triage.nodes[triage.start]
    if start.fine:
        yield f"{triage.start} on cluster {triage.cluster}: {start.status} ({start.why}): nothing to triage"
        return
    yield f"{triage.start} on cluster {triage.cluster}: {start.status}; {len(causes)} cause(s):"
    for node in causes:
        yield f"  {node.key}: {node.status}" + (f" at {node.location}" if node.location else "") + f": {node.why}"
    yield "walked:"
    yield from _tree(triage, start, 1, set())
    if triage.truncated:
        yield f"(the walk stopped after {MAX_NODES} instances)"


def _tree(triage: Triage, node: Node, depth: int, seen: set[str]) -> Iterator[str]:
    again = node.key in seen
    yield f"{'  ' * depth}{node.key}  {node.status}" + (" (above)" if again else f"  {node.why}")
    if again:
        return
    seen.add(node.key)
    for key in node.upstream:
        if key in triage.nodes:
            yield from _tree(triage, triage.nodes[key], depth + 1, seen)


def triage_command(
    repo: Repo = Path("."),
    feed: Annotated[str | None, typer.Option("--feed", help="Start from an instance of this feed.")] = None,
    process: Annotated[str | None, typer.Option("--process", help="Start from an instance of this process.")] = None,
    time: Annotated[str | None, typer.Option("--time", help="The instance time, yyyy-MM-ddTHH:mmZ (UTC).")] = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="The cluster (file://, or hdfs:// through WebHDFS). Default: the entity's only one.")]
    = None,
    now: NowOption = None,
    format_: Format = "text",
) -> None:
    """Why an instance is not done, in one answer (Falcon's `instance -triage`): from the instance up through
    what it needs to the first instances that are failed, waiting or missing, each with why.

    A feed instance that is available ends its branch; one that is missing leads to the process instances of the
    repo that write it on the cluster. A process instance that succeeded ends its branch; any other (failed,
    timed out, killed, waiting, never run) leads to its required input instances that are missing now. The causes
    are the instances that are not fine and lead to nothing that is not fine: a failed run whose inputs are
    there, a missing instance no process of the repo writes (an outside producer's, or a replication's), an
    instance evicted since. Statuses are read as `toolkit status` reads them and availability as process.py
    resolves it; table feeds are not checked (no metastore). Exit 0 whatever the instance's state.

    \b
    toolkit triage --repo conf --process daily-clicks-rollup --time 2026-11-22T00:00Z
    toolkit triage --repo conf --feed clicks-hourly-summary --time 2026-11-21T10:00Z --format json
    """
    check_format(format_)
    if (feed is None) == (process is None):
        raise UsageError("Give either --feed F or --process P (and --time T): the instance to triage.")
    kind = "feed" if feed is not None else "process"
    if time is None:
        raise UsageError(f"Give --time T, the time (yyyy-MM-ddTHH:mmZ) of the {kind} instance to triage.")
    t = parse_timestamp(time, "--time")
    current = Now.of(now)
    config = ConfigRepo.load(repo)
    entity: Feed | Process = config.feed(feed) if feed is not None else config.process(str(process))
    names = [c.name for c in entity.clusters]
    if cluster is None and len(names) != 1:
        raise UsageError(f"Give --cluster: the {kind} '{entity.name}' is on clusters {', '.join(names) or 'none'}.")
    on = config.cluster(cluster if cluster is not None else names[0])
    require_on_cluster(entity, on.name)
    grid = feed_grid(entity, on.name) if isinstance(entity, Feed) else process_grid(entity, on.name)
    if not grid.contains(t):
        before = grid.at_or_before(t)
        hint = f"; the one before is {format_timestamp(before)}" if before is not None else ""
        raise UsageError(f"--time {time} is no instance of {kind} '{entity.name}' on cluster '{on.name}'{hint}.")
    triage = Walk(config, on, open_ledger(on, current), current).run(Node(kind, entity.name, t))
    typer.echo(json.dumps(triage.to_json(), indent=2) if format_ == "json" else "\n".join(_lines(triage)))
