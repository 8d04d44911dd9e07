"""`toolkit instances`: what a process instance reads and writes, or a feed's instances (with `--listing`, their
states from storage and the ledger: toolkit/views/instance_listing/), as JSON or text."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from toolkit.cli.instances_text import feed_lines, process_lines
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import process_grid
from toolkit.core.instances.process_instance import describe_feed_instances, resolve_process_instance
from toolkit.errors import UsageError
from toolkit.services.runtime.times import nominal_time
from toolkit.shown_text import shown


def instances_command(
    repo: Annotated[Path, typer.Option("--repo", help="The config repo (clusters/, feeds/, processes/).")] = Path("."),
    process: Annotated[str | None, typer.Option("--process", help="A process: resolve its instance at --time.")] = None,
    feed: Annotated[str | None, typer.Option("--feed", help="A feed: list its instances in --from..--to.")] = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="The cluster (required with --feed; with --process, default: every cluster of it).")] = None,
    time: Annotated[str | None, typer.Option("--time", help=(
        "With --process: the instance's nominal time, yyyy-MM-ddTHH:mmZ. Default: the newest instance "
        "at or before now."))] = None,
    from_: Annotated[str | None, typer.Option("--from", help="With --feed: first time, yyyy-MM-ddTHH:mmZ.")] = None,
    to: Annotated[str | None, typer.Option("--to", help="With --feed: last time (included).")] = None,
    format_: Annotated[str, typer.Option("--format", help="json (scripts) or text (a line per instance).")] = "json",
    listing: Annotated[bool, typer.Option("--listing", help=(
        "With --feed: Falcon's instance listing, read from the cluster's storage and ledger (no Spark): each "
        "instance's state, size, creation time and producing run, and a count per state. File feeds only."))] = False,
) -> None:
    """Print, as JSON, the resolved inputs and outputs of one process instance (paths or partitions on
    each cluster), or the instances of a feed on a cluster with their paths.

    With --listing, as Falcon's `instance -listing`: each instance of the feed in the window with its state, the
    bytes of its folder's tree, its creation time (the availability flag's modification time, else the folder's) and
    the run whose dataset event published it, read from the cluster's file system (file://, or hdfs:// through
    WebHDFS) and ledger. States: AVAILABLE (the flag is there, or for a feed without one a visible file; or the
    folder is there and the ledger's newest event published it), PARTIAL (the folder without its flag, not
    published), EMPTY (a feed without a flag: the folder without a visible file, not published), MISSING (nothing
    there, no eviction), EVICTED (nothing there, and the newest event is retention's eviction), ARCHIVED
    (retention's archive action moved it, as its run's record says: the archive's path is given). Symbolic links
    are never followed: a link on the way to an instance or in it is named. A table feed is refused (its partitions
    need Spark's metastore client).

    Exit 0 listed, 1 a damaged ledger record (named), a folder that cannot be read (named: never listed as empty)
    or a cluster root that is not there, 2 bad call (with --listing also a table feed, or a window of more than
    100,000 instances).

    \b
    toolkit instances --repo conf --process hourly-clicks-summary --time 2026-11-21T10:00Z
    toolkit instances --repo conf --feed clicks --cluster primary --from 2026-11-21T00:00Z --to 2026-11-21T05:00Z
    toolkit instances --repo conf --feed clicks --cluster primary --from 2026-11-01T00:00Z \\
        --to 2026-11-21T23:00Z --listing --format text
    """
    if format_ not in ("json", "text"):
        raise UsageError(f"Unknown --format {format_!r}: use json or text.")
    if (process is None) == (feed is None):
        raise UsageError("Give either --process (with --time) or --feed (with --cluster, --from and --to).")
    if listing and feed is None:
        raise UsageError("--listing lists a feed's instances: give --feed with --cluster, --from and --to instead of "
                         "--process.")
    config = ConfigRepo.load(repo)
    if feed is not None:
        if cluster is None or from_ is None or to is None:
            raise UsageError("--feed needs --cluster, --from and --to: the feed's instances on one cluster in a range.")
        first, last = nominal_time(from_, "--from"), nominal_time(to, "--to")
        if last < first:
            raise UsageError(f"--to {to} is before --from {from_}: give a range that runs forward.")
        if listing:
            _print_listing(config, feed, cluster, (first, last), format_)
            return
        _print(describe_feed_instances(config, feed, cluster, first, last), format_, feed_lines)
        return
    entity = config.process(process)  # type: ignore[arg-type]
    names = [cluster] if cluster is not None else [c.name for c in entity.clusters]
    nominal = nominal_time(time)
    if time is None:
        newest = process_grid(entity, names[0]).at_or_before(nominal)
        if newest is None:
            raise UsageError(f"The process '{entity.name}' has no instance yet on cluster '{names[0]}': give --time.")
        nominal = newest
    resolved, errors = [], []
    for name in names:
        try:
            resolved.append(resolve_process_instance(config, entity.name, name, nominal).to_json())
        except UsageError as err:
            if cluster is not None:
                raise
            errors.append(err)
    if not resolved:
        raise errors[0]
    _print({"process": entity.name, "time": format_timestamp(nominal), "clusters": resolved}, format_, process_lines)


def _print(data: dict[str, object], format_: str, lines: Callable[[dict[str, object]], Iterator[str]]) -> None:
    typer.echo(json.dumps(data, indent=2) if format_ == "json" else "\n".join(lines(data)))


def _print_listing(config: ConfigRepo, feed: str, cluster: str, window: tuple[datetime, datetime],
                   format_: str) -> None:
    """The listing on stdout; the links it did not follow said on stderr too, for the person at the terminal. Its
    modules are imported here: the other forms of the command read neither storage nor a ledger."""
    from toolkit.cli.listing_text import listing_lines
    from toolkit.views.instance_listing.listing import list_feed_instances

    listed = list_feed_instances(config, feed, cluster, *window)
    typer.echo(json.dumps(listed.to_json(), indent=2) if format_ == "json" else "\n".join(listing_lines(listed)))
    links = listed.links
    if links:
        typer.echo(f"instances: {len(links)} symbolic link(s) not followed, the first {shown(links[0])}: the toolkit "
                   "never follows a link (it may lead outside the cluster root); the listing names each.", err=True)
