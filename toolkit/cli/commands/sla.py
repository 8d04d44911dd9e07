"""`toolkit sla`: the feed and process instances of a cluster that missed or are about to miss their SLA
(toolkit/orchestration/schedule/sla/), and the notifications of those misses. Called by cron every few minutes: no
Spark, no JVM, and only the window's instances are read."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.orchestration.schedule.sla.check import Report, check_slas, longest_sla
from toolkit.orchestration.schedule.sla.notify import notify_findings
from toolkit.services.notifications.message import describe_duration
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.cluster_files import cluster_file_system
from toolkit.services.runtime.times import nominal_time
from toolkit.views.ledger_access import Now


def sla_command(
    cluster: Annotated[str, typer.Option(
        "--cluster", help="The cluster whose instances are checked; its write endpoint (its ledger) is file://, or "
                           "hdfs:// through WebHDFS.")],
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    now: Annotated[str | None, typer.Option("--now", help=(
        "The current time, yyyy-MM-ddTHH:mmZ (UTC), that deadlines are judged at. Default: the wall clock, "
        "rounded down to the minute."))] = None,
    from_: Annotated[str | None, typer.Option("--from", help=(
        "The first instance time checked, yyyy-MM-ddTHH:mmZ. Default: a day before --to, and further back by "
        "the longest SLA of the cluster's entities (whose instances can still miss it)."))] = None,
    to: Annotated[str | None, typer.Option("--to", help="The last instance time checked. Default: --now.")] = None,
    format_: Annotated[str, typer.Option("--format", help="text (a line per instance) or json (scripts).")] = "text",
    notify: Annotated[bool, typer.Option(
        "--notify/--no-notify", help="Send the notifications of missed, late and at-risk instances of entities that "
                                     "declare `notification`, each once (default); --no-notify only lists.")] = True,
) -> None:
    """List every feed and process instance of a cluster in a window that missed or is about to miss its SLA
    (feeds: slaLow/slaHigh, from their first publication event, else their availability flag's or folder's
    modification time; processes: shouldStartIn/shouldEndIn, from their first start and their success), with how
    late. States: missed (not there past slaHigh/shouldEndIn), late (came after it: still a miss), at-risk (not
    there past slaLow, or not started by shouldStartIn), late-low (came after slaLow but in time for slaHigh).

    Exit 1 when an instance is missed or late (the scheduler alerts), else 0; 2 bad call.

    \b
    */5 * * * *  toolkit sla --repo /srv/conf --cluster primary
    toolkit sla --repo conf --cluster primary --now 2026-11-21T12:00Z --no-notify
    toolkit sla --repo conf --cluster primary --from 2026-11-20T00:00Z --to 2026-11-20T23:00Z --format json
    """
    if format_ not in ("text", "json"):
        raise UsageError(f"Unknown --format {format_!r}: use text or json.")
    at = Now.of(now).time.replace(second=0, microsecond=0)
    last = nominal_time(to, "--to") if to is not None else at
    config = ConfigRepo.load(repo)
    on = config.cluster(cluster)
    # by default the last day, and before it as far as the longest SLA reaches: an instance of a day ago with a
    # 30-hour SLA misses it now
    first = (nominal_time(from_, "--from") if from_ is not None
             else last - timedelta(days=1) - longest_sla(config, on.name))
    if last < first:
        raise UsageError(f"--to {format_timestamp(last)} is before --from {format_timestamp(first)}: give a window "
                         "that runs forward.")
    fs = cluster_file_system(on)
    report = check_slas(config, on.name, Ledger.of(fs, on), at, first, last)
    notifier = Notifier(fs, on)
    if notify:
        notify_findings(config, report, notifier)
    typer.echo(_json(report, notifier, notify) if format_ == "json" else _text(report, notifier, notify))
    if report.misses:
        raise typer.Exit(1)


def _text(report: Report, notifier: Notifier, notify: bool) -> str:
    lines = [f"{f.state:<8}  {f.kind:<7}  {f.entity}  {format_timestamp(f.time)}  late by "
             f"{describe_duration(f.late_seconds)}: {f.sentence()}" for f in report.findings]
    summary = (f"sla: {report.checked} instance(s) of cluster '{report.cluster}' checked from "
               f"{format_timestamp(report.first)} to {format_timestamp(report.last)} at "
               f"{format_timestamp(report.now)}: {len(report.misses)} miss(es), "
               f"{len(report.findings) - len(report.misses)} warning(s)")
    if notify:
        summary += f"; notifications sent {notifier.sent}, failed {notifier.failed}"
    return "\n".join([*lines, summary])


def _json(report: Report, notifier: Notifier, notify: bool) -> str:
    document = {"cluster": report.cluster, "now": format_timestamp(report.now), "from": format_timestamp(report.first),
                "to": format_timestamp(report.last), "checked": report.checked, "misses": len(report.misses),
                "findings": [finding.to_json() for finding in report.findings],
                **(notifier.counters() if notify else {})}
    return json.dumps(document, indent=2)
