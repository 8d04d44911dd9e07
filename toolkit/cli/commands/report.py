"""`toolkit report`: the status page of a cluster, one self-contained HTML file (toolkit/views/report/), read from the
cluster's ledger as `toolkit status`, `sla` and `graph` read it (toolkit/views/report/reading.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.commands.ledger import NowOption, Repo
from toolkit.cli.output_files import check_output_file, write_atomically
from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.yaml_loader import collector_paused
from toolkit.errors import UsageError
from toolkit.views.ledger_access import Now
from toolkit.views.report.html import render_html
from toolkit.views.report.reading import read_report
from toolkit.views.status.instance_rows import DEFAULT_INSTANCES


def check_graph_page(link: str) -> None:
    """The graph page is a path relative to the report, or an http(s) or file URL: any other scheme (`javascript:`)
    would run in the page when its link is clicked."""
    scheme, colon, _ = link.partition(":")
    if colon and "/" not in scheme and scheme.lower() not in ("http", "https", "file"):
        raise UsageError(f"--graph-page {link!r} is a {scheme}: URL: give the graph page's path relative to the "
                         "report (graph.html), or an http(s) or file URL.")


def report_command(
    repo: Repo = Path("."),
    cluster: Annotated[str | None, typer.Option("--cluster", help=(
        "The cluster whose ledger is read (required): file://, or hdfs:// through WebHDFS (docs/hdfs.md)."))] = None,
    from_: Annotated[str | None, typer.Option("--from", help=(
        f"First instance time, yyyy-MM-ddTHH:mmZ. Default: each entity's {DEFAULT_INSTANCES} newest instances "
        "(a day of an hourly feed, 24 days of a daily one)."))] = None,
    to: Annotated[str | None, typer.Option("--to", help="Last instance time (included). Default: now.")] = None,
    out: Annotated[Path, typer.Option("--out", help="The page to write (atomically: a temporary file renamed).")]
    = Path("status.html"),
    graph_page: Annotated[str, typer.Option("--graph-page", help=(
        "The graph page (`toolkit graph --cluster C --ledger --out FILE`) each entity links to, relative to the "
        "report: its link opens that page at the entity's node."))] = "graph.html",
    now: NowOption = None,
) -> None:
    """Write the status page of a cluster: a grid per feed and process, one cell per instance over the window,
    coloured by its state (docs/report.md); a header of what needs a person now (failures, SLA misses, held
    instances, the oldest waiting instance); filters by name, tag, pipeline and state; the entities in dependency
    order. A click on a cell shows its attempts, times, error, quality results, config commit and the commands
    that triage and rerun it. The page opens offline; `toolkit schedule` regenerates it every 5 minutes when the
    cluster's properties name it (`report.out: /srv/www/status.html`). stdout gets one line: what was written.

    \b
    toolkit report --repo conf --cluster primary --out /srv/www/status.html
    toolkit report --repo conf --cluster primary --from 2026-11-01T00:00Z --to 2026-11-21T23:00Z
    """
    if cluster is None:
        raise UsageError("--cluster is required: the page shows the ledger of one cluster.")
    first = parse_timestamp(from_, "--from") if from_ is not None else None
    last = parse_timestamp(to, "--to") if to is not None else None
    if first is not None and last is not None and last < first:
        raise UsageError(f"--to {to} is before --from {from_}: give a window that runs forward.")
    check_output_file(out, "--out")
    check_graph_page(graph_page)
    config = ConfigRepo.load(repo, cached=True)  # the parse cache of unchanged files (parse_cache.py)
    with collector_paused():  # a year's page is millions of cells, none of them in a cycle: no GC pass over them
        report = read_report(repo, config, config.cluster(cluster), Now.of(now), from_, to, graph_page)
        page = render_html(report)
    try:
        write_atomically(out, page)
    except OSError as err:
        raise UsageError(f"Cannot write --out {out}: {err.strerror or err}; give a file you can write.") from None
    typer.echo(f"wrote {out}: {len(report.grids)} entities, {report.cells} cells of cluster {cluster}")
