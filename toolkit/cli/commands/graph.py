"""`toolkit graph`: the config repo's clusters, feeds, processes and datasources and the edges between them, as one
self-contained HTML page (the default), Graphviz dot or Mermaid; with `--ledger`, coloured by the latest
instance statuses in the ledger of `--cluster` (a file:// cluster: the CLI reads ledgers without Spark)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.output_files import check_output_file, write_atomically
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.views.graph.build import build_graph
from toolkit.views.graph.dot import render_dot
from toolkit.views.graph.html import render_html
from toolkit.views.graph.ledger_statuses import with_statuses
from toolkit.views.graph.mermaid import render_mermaid
from toolkit.views.graph.model import Graph

RENDERERS: dict[str, Callable[[Graph], str]] = {"html": render_html, "dot": render_dot, "mermaid": render_mermaid}


def graph_command(
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Only the feeds and processes on this cluster, and the clusters it replicates with.")] = None,
    ledger: Annotated[bool, typer.Option(
        "--ledger", help="Colour feeds and processes by their latest status in --cluster's ledger.")] = False,
    format_: Annotated[str, typer.Option(
        "--format", help="html (a page that opens offline), dot (Graphviz) or mermaid.")] = "html",
    out: Annotated[Path | None, typer.Option(
        "--out", help="The file to write; required for html, else the text is printed.")] = None,
) -> None:
    """Draw the config repo as a graph: clusters, feeds, processes, datasources; producer, consumer, replication,
    import and export edges.

    Feeds that processes read and nothing in the repo writes are marked. In the HTML page a click on a node
    shows its definition and (with --ledger) its 10 latest instances. Example:

        toolkit graph --repo conf --cluster primary --ledger --out pipelines.html
    """
    renderer = RENDERERS.get(format_)
    if renderer is None:
        raise UsageError(f"Unknown --format {format_!r}: use html, dot or mermaid.")
    if ledger and cluster is None:
        raise UsageError("--ledger needs --cluster: statuses are read from the ledger of one cluster.")
    if format_ == "html" and out is None:
        raise UsageError("--format html needs --out FILE (the page to write), e.g. --out pipelines.html.")
    if out is not None:
        check_output_file(out, "--out")
    config = ConfigRepo.load(repo)
    graph = build_graph(config, cluster)
    if ledger and cluster is not None:
        from toolkit.views.ledger_access import Now, open_ledger  # only a call with --ledger loads the ledger's code

        graph = with_statuses(graph, open_ledger(config.cluster(cluster), Now.of(None)))
    text = renderer(graph)
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        write_atomically(out, text)
    except OSError as err:
        raise UsageError(f"Cannot write --out {out}: {err.strerror or err}; give a file you can write.") from None
    counts = ", ".join(f"{count} {_one(name) if count == 1 else name}" for name, count in graph.counts().items())
    typer.echo(f"wrote {out}: {counts}")


def _one(plural: str) -> str:
    """`process` for `processes`, `feed` for `feeds`: how a count of one is said."""
    return plural[:-2] if plural.endswith("sses") else plural[:-1]
