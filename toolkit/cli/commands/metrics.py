"""`toolkit metrics`: a cluster's ledger as Prometheus metrics (toolkit/views/metrics/, docs/metrics.md). No Spark,
no JVM: a cron line every few minutes writes node_exporter's textfile, or a long-running call serves a scrape."""

from __future__ import annotations

import signal
import sys
import threading
from datetime import timedelta
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from toolkit.cli.metrics_exposition import (
    DEFAULT_PORT,
    Address,
    listening,
    registry_of,
    text,
    write_textfile,
)
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import ToolkitError, UsageError
from toolkit.views.ledger_access import Now, open_present_ledger
from toolkit.views.metrics.cluster_readings import ClusterScope
from toolkit.views.metrics.families import LedgerCollector
from toolkit.views.metrics.readings import Window


def window_length(text: str) -> timedelta:
    """`--window` as a length of time: minutes, hours or days of 24 hours (a month has no one length)."""
    try:
        frequency = Frequency.parse(text)
    except ToolkitError:
        raise UsageError(f"--window {text!r} is not days(N), hours(N) or minutes(N).") from None
    if frequency.unit is TimeUnit.MONTHS:
        raise UsageError(f"--window {text!r} has no fixed length: give days(N), hours(N) or minutes(N).")
    return timedelta(minutes=frequency.approx_minutes())  # a day of the window is 24 hours: it is counted in UTC


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _tell(err: ToolkitError) -> None:
    print(f"metrics: the ledger could not be read for this scrape: {err}", file=sys.stderr, flush=True)


def metrics_command(
    cluster: Annotated[str, typer.Option(
        "--cluster", help="The cluster whose ledger is read; its write endpoint is file://, or hdfs:// through "
                          "WebHDFS.")],
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    textfile: Annotated[str | None, typer.Option(
        "--textfile", help="Write DIR/feed_toolkit.prom atomically, for node_exporter's textfile collector "
                           "(--collector.textfile.directory=DIR); the folder must exist.")] = None,
    listen: Annotated[str | None, typer.Option(
        "--listen", help=f"Serve /metrics at HOST:PORT (or PORT, on 127.0.0.1) until stopped, reading the ledger "
                         f"at each scrape; e.g. {DEFAULT_PORT}. The repo is read once, at the start.")] = None,
    window: Annotated[str, typer.Option(
        "--window", help="Instances counted: those of the last days(N), hours(N) or minutes(N) up to now. "
                         "Default: days(7).")] = "days(7)",
    now: Annotated[str | None, typer.Option(
        "--now", help="The current time, yyyy-MM-ddTHH:mmZ (UTC), for tests and reruns. Default: the wall clock "
                      "(at each scrape with --listen).")] = None,
) -> None:
    """Prometheus metrics of a cluster's feeds, processes and actions, read from its ledger (no server of our own,
    no Spark): per feed its newest publication, freshness and instances by state, per process its instances by
    status, newest success, attempts and durations, SLA misses of both, the newest retention, replication and
    ingest of each feed, unsent lineage and failed notifications. Instance counts are over --window (the last 7
    days by default); a `..._timestamp_seconds` is a wall-clock time. Metric names and their alerting rules:
    docs/metrics.md, docs/prometheus/alerts.yml.

    Without --textfile or --listen, the metrics are printed. Exit 0 done (or --listen stopped by Ctrl-C or
    SIGTERM), 1 a damaged ledger record (nothing written), 2 bad call.

    \b
    */5 * * * *  toolkit metrics --repo /srv/conf --cluster primary --textfile /var/lib/prometheus/node-exporter
    toolkit metrics --repo conf --cluster primary --listen 127.0.0.1:9464
    """
    if textfile is not None and listen is not None:
        raise UsageError("Give --textfile or --listen, not both: a cron line writes the file, a server serves it.")
    if textfile is not None and not textfile.strip():
        raise UsageError("--textfile is empty: give node_exporter's --collector.textfile.directory.")
    length = window_length(window)
    address = Address.parse(listen) if listen is not None else None
    config = ConfigRepo.load(repo, cached=True)  # the parse cache of unchanged files (parse_cache.py)
    on = config.cluster(cluster)

    def scope() -> ClusterScope:
        current = Now.of(now)
        return ClusterScope.of(config, on, open_present_ledger(on, current), Window(current.time, length))

    collector = LedgerCollector(on.name, scope, tell=_tell if address is not None else None)
    if address is not None:
        signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop ends it as Ctrl-C does
        with listening(registry_of(collector), address):
            print(f"metrics: serving cluster '{on.name}' at {address.url} (Ctrl-C or SIGTERM stops)", flush=True)
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                print(f"metrics: stopped serving {address.url}", flush=True)
        return
    if textfile is None:
        typer.echo(text(collector).text, nl=False)
        return
    target, written = write_textfile(collector, Path(textfile))
    print(f"metrics: wrote {target}: cluster '{on.name}', {written.feeds} feeds, "
          f"{written.processes} processes, {written.action_runs} action runs, instances of the last {window}")
