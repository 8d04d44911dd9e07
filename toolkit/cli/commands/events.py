"""`toolkit publish` and `toolkit events`: record an outside producer's feed instance as published, and list the
dataset events of a local cluster's ledger, without Spark. Table feeds and clusters that are not file:// are
published by `spark-submit entrypoints/publish.py` (the same core, actions/publication/publish.py)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from toolkit.actions.publication.publish import publish_instance
from toolkit.cli.ledger_text import NONE, table
from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.ledger.records import DatasetEvent
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.runtime.repo_revision import repo_revision
from toolkit.services.runtime.times import nominal_time
from toolkit.views.ledger_access import Now, open_ledger

Repo = Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")]
Format = Annotated[str, typer.Option("--format", help="text (aligned columns) or json (scripts).")]


def _check_format(format_: str) -> None:
    if format_ not in ("text", "json"):
        raise UsageError(f"Unknown --format {format_!r}: use text or json.")


def _event_json(event: DatasetEvent) -> dict[str, object]:
    return {"event_id": event.event_id, "feed": event.feed, "cluster": event.cluster, "time": event.time,
            "kind": event.kind, "producer": event.producer, "run_id": event.run_id, "location": event.location,
            "fingerprint": event.fingerprint.to_json() if event.fingerprint else None, "published": event.published}


def publish_command(
    feed: Annotated[str, typer.Option("--feed", help="The feed the instance belongs to.")],
    cluster: Annotated[str, typer.Option(
        "--cluster", help="The cluster where the instance was written; its write endpoint must be file://.")],
    repo: Repo = Path("."),
    time: Annotated[str | None, typer.Option(
        "--time", help="The instance time, yyyy-MM-ddTHH:mmZ (UTC). Default: now, to the minute.")] = None,
    format_: Format = "text",
) -> None:
    """Record that an outside producer (Flume, NiFi, another team's job) finished writing an instance of a feed:
    the instance must be available as readers see it (the feed's availability flag, else its folder), then it is
    fingerprinted and its dataset event written (`published`, or `replaced` when it had been published before;
    producer `external`). Publishing unchanged content again records nothing new.

    Exit 0 recorded (or recorded already), 2 bad call (unknown feed, a time that is no instance), 3 the instance
    is not available yet (call again once it is), 4 outside the feed's validity, 5 safemode, or another publish of
    the instance running (named: call again later). Table feeds and clusters that are not file:// need Spark:
    `spark-submit entrypoints/publish.py` with the same arguments.

    \b
    toolkit publish --repo conf --feed clicks --cluster primary --time 2026-11-21T10:00Z
    """
    _check_format(format_)
    t = nominal_time(time)
    config = ConfigRepo.load(repo)
    config.revision = repo_revision(config.root)  # its event records which definition published it
    entity, on = config.feed(feed), config.cluster(cluster)
    require_on_cluster(entity, on.name)
    scheme = urlsplit(on.write_endpoint or "").scheme.lower()
    if entity.table_on(on.name) is not None or scheme != "file":
        what = (f"feed '{entity.name}', a catalog table on cluster '{on.name}'," if entity.table_on(on.name)
                else f"an instance on cluster '{on.name}' ({scheme or 'no'}:// file system)")
        raise UsageError(f"Publishing {what} needs Spark: run `spark-submit entrypoints/publish.py` with the same "
                         "arguments.")

    def no_catalog() -> Catalog:
        raise UsageError(f"Feed '{entity.name}' needs the metastore: run `spark-submit entrypoints/publish.py`.")

    published = publish_instance(config, entity.name, on.name, t, LocalFileSystem(), no_catalog, uuid.uuid4().hex[:12])
    event = published.event
    if format_ == "json":
        typer.echo(json.dumps({**_event_json(event), "recorded": published.recorded}, indent=2))
        return
    said = "recorded" if published.recorded else "already recorded, content unchanged"
    typer.echo(f"{event.kind}: {event.feed} {event.time} on {event.cluster} ({said}; event {event.event_id})")
    typer.echo(f"  {event.location}")


def events_command(
    cluster: Annotated[str, typer.Option(
        "--cluster", help="The cluster whose ledger to read; its write endpoint is file://, or hdfs:// through WebHDFS "
                           "(docs/hdfs.md).")],
    repo: Repo = Path("."),
    feed: Annotated[str | None, typer.Option("--feed", help="Only this feed's events. Default: every feed.")] = None,
    from_: Annotated[str | None, typer.Option(
        "--from", help="First instance time, yyyy-MM-ddTHH:mmZ (included). Default: the first.")] = None,
    to: Annotated[str | None, typer.Option(
        "--to", help="Last instance time (included). Default: the last.")] = None,
    format_: Format = "text",
) -> None:
    """The dataset events of a cluster: every publication (`published`, `replaced`) and eviction (`evicted`) of
    feed instances there, with its producer (process:<name>, replication:<source>, hive-import, retention,
    external), run, location and published stamp; oldest instance first, each instance's events in the order
    they were recorded. --from and --to are instance times.

    \b
    toolkit events --repo conf --cluster primary
    toolkit events --repo conf --cluster primary --feed clicks \\
        --from 2026-11-21T00:00Z --to 2026-11-21T23:00Z --format json
    """
    _check_format(format_)
    first = parse_timestamp(from_, "--from") if from_ is not None else None
    last = parse_timestamp(to, "--to") if to is not None else None
    if first is not None and last is not None and last < first:
        raise UsageError(f"--to {to} is before --from {from_}: give a last instance time after the first.")
    config = ConfigRepo.load(repo)
    on = config.cluster(cluster)
    feeds = [config.feed(feed).name] if feed is not None else None
    ledger = open_ledger(on, Now.of(None))
    found: list[tuple[datetime, str, DatasetEvent]] = []
    for name in feeds if feeds is not None else ledger.event_feeds():
        for t in ledger.feed_event_times(name):
            if (first is None or t >= first) and (last is None or t <= last):
                found += [(t, name, event) for event in ledger.events(name, t)]
    events = [event for _, _, event in sorted(found, key=lambda item: (item[0], item[1], item[2].event_id))]
    if format_ == "json":
        typer.echo(json.dumps([_event_json(event) for event in events], indent=2))
    else:
        typer.echo("\n".join(_lines(events)))


def _lines(events: Sequence[DatasetEvent]) -> Iterator[str]:
    if not events:
        yield "no events"
        return
    yield from table(("TIME", "FEED", "KIND", "PRODUCER", "RUN", "PUBLISHED", "LOCATION"),
                     ((e.time, e.feed, e.kind, e.producer, e.run_id or NONE, e.published, e.location)
                      for e in events))
