"""`toolkit lineage`: where an instance came from and where it went, read from the ledgers of the clusters
involved, without Spark (toolkit/views/lineage/). A group, so that subcommands can join it; without one, its callback
answers the query, and checks its options itself (they are optional to click, so a subcommand needs none).
`toolkit lineage resend` sends the OpenLineage events a backend missed (lineage_resend.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.lineage_resend import resend_command
from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.views.ledger_access import Now, open_ledger
from toolkit.views.lineage.dot import lineage_dot
from toolkit.views.lineage.graph import Lineage
from toolkit.views.lineage.json_form import lineage_json
from toolkit.views.lineage.ledgers import Ledgers
from toolkit.views.lineage.text import lineage_lines
from toolkit.views.lineage.walk import trace_feed, trace_process

DEFAULT_UP, DEFAULT_DOWN, MOST_LEVELS = 3, 1, 50
FORMATS = ("text", "json", "dot")

app = typer.Typer()  # its help is the callback's docstring
app.command("resend")(resend_command)


@app.callback(invoke_without_command=True)
def lineage_command(
    ctx: typer.Context,
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="The cluster of the instance (its write endpoint file://, or hdfs:// through "
                          "WebHDFS). Default: the entity's only one.")]
    = None,
    feed: Annotated[str | None, typer.Option("--feed", help="Start from an instance of this feed.")] = None,
    process: Annotated[str | None, typer.Option("--process", help="Start from an instance of this process.")] = None,
    time: Annotated[str | None, typer.Option("--time", help="The instance time, yyyy-MM-ddTHH:mmZ (UTC).")] = None,
    up: Annotated[int, typer.Option("--up", help="Producing runs to follow upstream.")] = DEFAULT_UP,
    down: Annotated[int, typer.Option("--down", help="Reading runs to follow downstream.")] = DEFAULT_DOWN,
    format_: Annotated[str, typer.Option("--format", help="text (a tree), json (docs/lineage.md) or dot.")] = "text",
) -> None:
    """Which run produced an instance (process, attempt, run id, when), from which input instances (with their
    fingerprints as read, and whether they changed since), upstream across replication to the source cluster;
    and downstream, which runs read it and what they wrote. Reads the ledgers of the clusters involved, no Spark.

    --up counts producing runs (a replication is one), default 3; --down reading runs, default 1.

    \b
    toolkit lineage --repo conf --cluster primary --feed clicks-hourly-summary --time 2026-11-21T10:00Z
    toolkit lineage --repo conf --process daily-clicks-rollup --time 2026-11-22T00:00Z --up 5 --format json
    toolkit lineage --repo conf --cluster backup --feed clicks --time 2026-11-21T10:00Z --format dot | dot -Tsvg
    """
    if ctx.invoked_subcommand is not None:
        return
    lineage = query(repo, cluster, feed, process, time, up, down, format_)
    if format_ == "json":
        typer.echo(json.dumps(lineage_json(lineage), indent=2))
    elif format_ == "dot":
        typer.echo("\n".join(lineage_dot(lineage)))
    else:
        typer.echo("\n".join(lineage_lines(lineage)))


def query(repo: Path, cluster: str | None, feed: str | None, process: str | None, time: str | None, up: int,
          down: int, format_: str) -> Lineage:
    """Check the call (one sentence, exit 2, for each mistake), load the repo and walk the ledgers."""
    if (feed is None) == (process is None):
        raise UsageError("Give either --feed F or --process P (and --time T): the instance whose lineage to show.")
    if time is None:
        raise UsageError("Give --time T, the instance time (yyyy-MM-ddTHH:mmZ), of the "
                         f"{'feed' if feed is not None else 'process'} instance whose lineage to show.")
    if format_ not in FORMATS:
        raise UsageError(f"Unknown --format {format_!r}: use text, json or dot.")
    for option, levels in (("--up", up), ("--down", down)):
        if not 0 <= levels <= MOST_LEVELS:
            raise UsageError(f"{option} {levels} is out of range: give 0 to {MOST_LEVELS} levels.")
    t = parse_timestamp(time, "--time")
    config = ConfigRepo.load(repo)
    now = Now.of(None)

    def opener(on: Cluster) -> Ledger:
        return open_ledger(on, now)

    ledgers = Ledgers(config, opener)
    if feed is not None:
        entity = config.feed(feed)
        return trace_feed(ledgers, entity.name, _cluster(cluster, entity.cluster_names, f"feed '{entity.name}'"),
                          t, up, down)
    assert process is not None
    started = config.process(process)
    names = tuple(c.name for c in started.clusters)
    return trace_process(ledgers, started.name, _cluster(cluster, names, f"process '{started.name}'"), t, up, down)


def _cluster(given: str | None, names: tuple[str, ...], what: str) -> str:
    if given is not None:
        return given
    if len(names) == 1:
        return names[0]
    raise UsageError(f"Give --cluster: the {what} is on clusters {', '.join(names) or 'none'}.")
