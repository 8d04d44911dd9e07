"""`toolkit lineage resend`: send again the OpenLineage events a lineage backend missed, from the ledger's copy
(toolkit/services/openlineage/resend.py). No Spark; the cluster's ledger is read through its local file system."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated

import typer

from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import ToolkitError, UsageError
from toolkit.services.openlineage.resend import resend
from toolkit.services.openlineage.settings import lineage_settings
from toolkit.services.openlineage.transport import Emitter
from toolkit.views.ledger_access import Now, open_ledger

DEFAULT_TIMEOUT = 30.0


def resend_command(
    cluster: Annotated[str, typer.Option("--cluster", help="The cluster whose ledger keeps the events.")],
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    first: Annotated[str | None, typer.Option(
        "--from", help="Only runs started at or after this instant, yyyy-MM-ddTHH:mmZ (UTC). Default: the oldest.")]
    = None,
    last: Annotated[str | None, typer.Option(
        "--to", help="Only runs started at or before this instant, yyyy-MM-ddTHH:mmZ (UTC). Default: the newest.")]
    = None,
    everything: Annotated[bool, typer.Option(
        "--all", help="Send every event of the window again, not only those the backend did not take (a new "
                      "backend to fill).")] = False,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Give up after this many seconds of sending in all; what is left stays for the next "
                          "resend.")] = DEFAULT_TIMEOUT,
) -> None:
    """Send the OpenLineage events of a cluster's runs that were not sent when they happened (the backend was
    down or slow: the status line of those runs counted them in `lineage_unsent`), oldest run first, through the
    client configured as for the actions (OPENLINEAGE_URL, OPENLINEAGE_CONFIG or openlineage.yml, OPENLINEAGE__
    variables, or the cluster's `openlineage.*` properties). Each event sent is marked in the ledger, so a second
    resend sends nothing twice.

    Exit 0 when everything due was sent, 1 when some events could not be (they stay for the next resend),
    2 bad call (lineage not configured, a bad time), 5 another resend of this cluster running.
    """
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    config = ConfigRepo.load(repo)
    target = config.cluster(cluster)
    settings = lineage_settings(target)
    if settings is None:
        raise UsageError(f"Lineage is not configured for cluster '{cluster}': set OPENLINEAGE_URL (or "
                         "OPENLINEAGE_CONFIG, an openlineage.yml, OPENLINEAGE__ variables, or the cluster's "
                         "openlineage.* properties), then resend.")
    window = [parse_timestamp(text, option) if text else None for text, option in ((first, "--from"), (last, "--to"))]
    if window[0] and window[1] and window[0] > window[1]:
        raise UsageError("--from is after --to: give the window's first instant, then its last.")
    ledger = open_ledger(target, Now.of(None))
    result = resend(ledger, Emitter(settings.config, budget=timeout), uuid.uuid4().hex[:12], window[0], window[1],
                    everything)
    unsent = result.due - result.sent
    typer.echo(f"lineage resend: {result.sent} of {result.due} event(s) due, from {result.runs} run(s) of cluster "
               f"'{cluster}', sent" + (f"; {unsent} not sent ({result.reason}), kept for the next resend"
                                       if unsent else ""))
    if unsent:
        raise ToolkitError(f"{unsent} event(s) could not be sent: call again when the backend answers.")
