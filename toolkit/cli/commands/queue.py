"""`toolkit queue`: a batch consumer's queue on a local cluster, read without Spark: the events of its inputs that
no plan holds yet, and every planned batch (claimed by a live run, open, or consumed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from toolkit.cli.commands.ledger import ClusterName, Format, NowOption, ProcessName, Repo, check_format, open_scope
from toolkit.cli.ledger_text import NONE, table
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.ledger.consumption import Batch, ConsumerQueue
from toolkit.core.ledger.journal import JournalEntry
from toolkit.errors import UsageError


def queue_command(
    repo: Repo = Path("."),
    process: ProcessName = None,
    cluster: ClusterName = None,
    now: NowOption = None,
    format_: Format = "text",
) -> None:
    """A consumer's queue on a cluster: its pending events (dataset events of its input feeds, published or
    replaced, that no plan holds yet, oldest first) and its batches, each a plan of exact event ids: `claimed`
    (not committed, a live run holds its lease: who and since when), `open` (not committed and not held: the
    next run replays exactly these events) or `consumed` (committed: by which run, when).

    The journal of a ledger written before it existed is listed once from the event folders (docs/ledger.md,
    "The journal"); this command may be the one that does it.

    \b
    toolkit queue --repo conf --cluster primary --process clicks-loader
    toolkit queue --repo conf --cluster primary --process clicks-loader --format json
    """
    check_format(format_)
    scope = open_scope(repo, process, cluster, now)
    if not scope.process.is_batch_consumer:
        raise UsageError(f"The process '{scope.process.name}' has a frequency: it consumes no batches, so it has no "
                         "queue; `toolkit status` shows its instances.")
    feeds = sorted({item.feed for item in scope.process.inputs})
    queue = ConsumerQueue(scope.ledger, scope.process.name, feeds)
    pending, batches = queue.pending(), queue.batches()
    if format_ == "json":
        typer.echo(json.dumps({"process": scope.process.name, "cluster": scope.cluster.name, "feeds": feeds,
                               "pending": [_entry_json(entry) for entry in pending],
                               "batches": [_batch_json(batch) for batch in batches]}, indent=2))
    else:
        typer.echo("\n".join(_lines(pending, batches)))


def _entry_json(entry: JournalEntry) -> dict[str, str]:
    return {"event_id": entry.event_id, "feed": entry.feed, "time": format_timestamp(entry.time), "kind": entry.kind}


def _batch_json(batch: Batch) -> dict[str, Any]:
    plan, lease, commit = batch.plan, batch.lease, batch.commit
    first, last = plan.instances or (None, None)
    held = lease is not None and batch.live
    return {"seq": plan.seq, "state": batch.state, "events": len(plan.events), "first": first, "last": last,
            "planned_by": plan.run_id, "planned": plan.created,
            "run_id": commit.run_id if commit is not None else lease.run_id if held and lease else None,
            "holder": lease.holder if held and lease else None,
            "since": lease.details.since if held and lease else None,
            "lease_ends": lease.expires_text if held and lease else None,
            "committed": commit.committed if commit is not None else None,
            "event_ids": sorted(plan.event_ids)}


def _lines(pending: list[JournalEntry], batches: list[Batch]) -> Iterator[str]:
    yield f"pending: {len(pending)} event{'' if len(pending) == 1 else 's'}"
    if pending:
        yield from ("  " + line for line in table(
            ("TIME", "FEED", "KIND", "EVENT"),
            ((format_timestamp(e.time), e.feed, e.kind, e.event_id) for e in pending)))
    yield f"batches: {len(batches)}"
    if batches:
        rows = []
        for batch in batches:
            item = _batch_json(batch)
            stamp = item["committed"] or item["since"]
            rows.append((str(item["seq"]), item["state"], str(item["events"]), f"{item['first']}..{item['last']}",
                         item["run_id"] or NONE, item["holder"] or NONE, stamp or NONE))
        yield from ("  " + line for line in table(
            ("SEQ", "STATE", "EVENTS", "INSTANCES", "RUN", "HOLDER", "SINCE/COMMITTED"), rows))
