"""`toolkit trigger`: the sweep that starts data-triggered processes when their data is published
(toolkit/orchestration/triggers/). Called by cron every minute, or by any scheduler; no Spark and no JVM unless a run is
due."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS, Ledger
from toolkit.errors import ToolkitError, UsageError
from toolkit.orchestration.schedule.airflow_events.settings import airflow_settings, notify_targets
from toolkit.orchestration.triggers.launch import Launcher
from toolkit.orchestration.triggers.sweep import run_sweep
from toolkit.services.runtime.cluster_files import cluster_file_system
from toolkit.services.runtime.entry_frame import MAX_SECONDS
from toolkit.services.runtime.submit import SUBMIT_ARGS_PROPERTY, runnable_spark_submit, submit_arguments, worst

if TYPE_CHECKING:
    from toolkit.orchestration.schedule.airflow_events.delivery import NotifyReport

DEFAULT_LOG_DIR = Path(tempfile.gettempdir()) / "feed-toolkit-trigger"


def trigger_command(
    cluster: Annotated[str, typer.Option(
        "--cluster", help="The cluster to sweep; its write endpoint (where its ledger is) is file://, or hdfs:// "
                          "through WebHDFS (docs/hdfs.md).")],
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print what would be started; start nothing, take no lock, write nothing (but the "
                          "journal's one-time rebuild on a ledger older than it).")] = False,
    wait: Annotated[bool, typer.Option(
        "--wait", help="Wait for the runs started and exit with the worst of their exit codes.")] = False,
    spark_submit_path: Annotated[str | None, typer.Option(
        "--spark-submit", help="The spark-submit to run. Default: the one on PATH, else SPARK_HOME's, else "
                               "pyspark's.")] = None,
    submit_args: Annotated[str | None, typer.Option(
        "--submit-args", help=f"Arguments for spark-submit before the entrypoint, e.g. \"--master yarn\". "
                              f"Default: the cluster property {SUBMIT_ARGS_PROPERTY}, else none.")] = None,
    log_dir: Annotated[Path, typer.Option(
        "--log-dir", help="Where each started run's output goes, one file per run.")] = DEFAULT_LOG_DIR,
    notify: Annotated[list[str] | None, typer.Option(
        "--notify", metavar="airflow",
        help="After the sweep, post each new dataset event of the cluster's ledger (publications and "
             "replacements) to Airflow as an asset event, once (recorded in the ledger; an Airflow that cannot be "
             "reached loses nothing: the next call delivers). Only 'airflow'. Default: the cluster property "
             "trigger.notify. Airflow is found by the properties airflow.url and airflow.token-env, or "
             "airflow.username with airflow.password-env or airflow.password-file (docs/airflow-events.md).")] = None,
    lease: Annotated[float | None, typer.Option(
        "--lease", metavar="SECONDS",
        help="The lease of the runs it starts (their --lease): a run killed without a trace keeps its instance or "
             "batch until its lease expires, then a later sweep starts it again. Shorter means a quicker takeover "
             f"and more lease writes. Default: the entrypoint's, {DEFAULT_LEASE_SECONDS:.0f}.")] = None,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", envvar="FEED_TOOLKIT_NO_CACHE",
        help="Parse and check every entity file, without the parse cache of unchanged valid files (kept in "
             "$FEED_TOOLKIT_CACHE_DIR, else $XDG_CACHE_HOME/feed-toolkit, else ~/.cache/feed-toolkit; "
             "docs/scheduling.md). The result is the same either way.")] = False,
) -> None:
    """Start the data-triggered processes of a cluster whose data is published: for a process with a frequency
    and `trigger: data`, each instance whose required inputs are all published (`spark-submit
    entrypoints/process.py ... --time T --no-wait`, with --force-if-started-before when it had succeeded before
    its data was published again); for a batch consumer (no frequency), a run per batch to consume
    (`... --batch`). At most the process's `parallel` at once. Reads only the journal entries since the last sweep.

    With --notify airflow (or the cluster property trigger.notify: airflow), the new dataset events are then
    posted to Airflow's API as asset events (the feed's asset by its URI, the instance as partition key for
    partitioned DAGs, the producer run in `extra`); the line `airflow: airflow_delivered=N airflow_pending=M
    airflow_skipped=K` counts them, and an Airflow that cannot be reached is named once on stderr (exit 0: its
    events stay pending for the next call).

    Exit 0 (the runs started, or nothing due), 2 bad call or Airflow settings (or credentials Airflow refused),
    5 safemode or another sweep or notifier of the cluster running (it is named); with --wait, the worst exit
    code of the runs started.

    \b
    * * * * *  toolkit trigger --repo /srv/conf --cluster primary
    toolkit trigger --repo conf --cluster primary --dry-run
    * * * * *  AIRFLOW_TOKEN=... toolkit trigger --repo /srv/conf --cluster primary --notify airflow
    """
    if lease is not None and not (0 < lease <= MAX_SECONDS):
        raise UsageError(f"--lease {lease:g} is no lease: give a positive number of seconds, at most a year.")
    config = ConfigRepo.load(repo, cached=not no_cache)
    on = config.cluster(cluster)
    notifies = "airflow" in notify_targets(on, notify or [])
    arguments = submit_arguments(submit_args, on)
    program = runnable_spark_submit(spark_submit_path, log_dir)
    launcher = Launcher(str(repo.resolve()), on.name, arguments, log_dir, program, lease)
    ledger = Ledger.of(cluster_file_system(on), on)
    report = run_sweep(config, on.name, ledger, launcher, dry_run=dry_run)
    verb = "would start" if dry_run else "started"
    for run in report.started:
        typer.echo(f"{verb}: {run.label}" + (f"  ({launcher.describe(run)})" if dry_run else ""))
    for line in report.waiting:
        typer.echo(f"due, not started: {line}")
    for line in report.skipped:
        typer.echo(f"skipped: {line}")
    typer.echo(f"trigger: {report.entries} new event(s) read on cluster '{on.name}', {len(report.started)} run(s) "
               f"{verb}")
    if notifies:  # after the sweep: a notifier that cannot run never keeps the due runs from starting
        # loaded here: a sweep without it (cron's every minute) spends no 50 ms importing an HTTP client
        from toolkit.orchestration.schedule.airflow_events.delivery import notify_airflow  # noqa: PLC0415

        settings = airflow_settings(on)
        notified = notify_airflow(config, on.name, ledger, settings, dry_run=dry_run)
        _echo_notified(notified, settings.url)
        if notified.refused is not None:
            raise ToolkitError(f"Airflow at {settings.url} refused a request ({notified.refused}); the event(s) it "
                               "concerns stay pending and are tried again by the next call.")
    if wait and not dry_run and report.started:
        codes = []
        for run, code, log in launcher.wait():
            typer.echo(f"{run.label}: exit {code} (log {log})")
            codes.append(code)
        if worst(codes):
            raise typer.Exit(worst(codes))


def _echo_notified(report: NotifyReport, url: str) -> None:
    """What the Airflow notifier did: a dry run's posts, the skipped feeds, why Airflow was not reached (once, on
    stderr, with the URL, which holds no credentials), and the counts."""
    for line in report.would_post:
        typer.echo(f"would post to Airflow: {line}")
    for feed, (why, count) in sorted(report.skipped.items()):
        typer.echo(f"airflow: skipped {count} event(s) of feed '{feed}': {why}")
    if report.unreachable is not None:
        typer.echo(f"Airflow at {url} could not be reached ({report.unreachable}): {report.pending} event(s) stay "
                   "pending; the next call delivers them.", err=True)
    typer.echo(f"airflow: airflow_delivered={report.delivered} airflow_pending={report.pending} "
               f"airflow_skipped={sum(count for _, count in report.skipped.values())}")
