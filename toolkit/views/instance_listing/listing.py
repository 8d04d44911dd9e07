"""The listing of a file feed's instances on a cluster in a window, as Falcon's `instance -listing` gives it, with
what the ledger knows: each instance's state from its storage (stored.py) and its dataset events (one batched read,
`Ledger.events_of`), its size, creation time and the run that produced it. No Spark: the cluster's file system is
the command line's (local, or HDFS through WebHDFS)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import FeedLocations, feed_locations, under_root
from toolkit.core.instances.grids import feed_grid
from toolkit.core.ledger.records import EVICTED, DatasetEvent, parse_record
from toolkit.core.ledger.retention_runs import RetentionRecord
from toolkit.core.storage.filesystem import FileSystem, normalize_uri
from toolkit.errors import UsageError
from toolkit.services.runtime.run_record import record_folder
from toolkit.views.instance_listing.records import ListedInstance, Listing, ListingState, RunRef
from toolkit.views.instance_listing.stored import Stored, stored_instances
from toolkit.views.ledger_access import Now, open_present_ledger

# A window of more instances is refused: a minutely feed's year (525,600) would hold the listing in memory at once.
MAX_INSTANCES = 100_000


def list_feed_instances(repo: ConfigRepo, feed_name: str, cluster_name: str, first: datetime,
                        last: datetime) -> Listing:
    """The instances of the feed on the cluster in [first, last] (its grid, inside its validity there), oldest first.
    UsageError (exit 2) for a table feed, a window of more than MAX_INSTANCES, a cluster the command line cannot
    read; StorageError (1) for a root that is not there; CorruptRecordError (1) naming a damaged event record."""
    feed, cluster = repo.feed(feed_name), repo.cluster(cluster_name)
    where = feed_locations(feed, cluster)
    _require_files(feed, where)
    times = _window(feed, cluster.name, first, last)
    ledger = open_present_ledger(cluster, Now.of(None))
    paths = {t: normalize_uri(under_root(where.root, where.paths["data"].format(t, where.zone))) for t in times}
    stored = stored_instances(ledger.fs, where.root, paths, feed.availability_flag)
    events = ledger.events_of(feed.name, times)
    moved = {found[-1].run_id for t, found in events.items() if found and found[-1].kind == EVICTED
             and normalize_uri(found[-1].location) != paths[t]}
    archiving = archiving_runs(ledger.fs, cluster, feed.name, moved) if moved else frozenset()
    listed = tuple(_listed(t, paths[t], stored[t], events.get(t, []), feed.availability_flag, archiving)
                   for t in times)
    return Listing(feed.name, cluster.name, first, last, feed.availability_flag, listed)


def archiving_runs(fs: FileSystem, cluster: Cluster, feed: str, runs: set[str]) -> frozenset[str]:
    """Those of `runs` whose retention record says they archived (`action_taken`): an eviction event names the
    archive's path, but a path that differs from the instance's may also be a cluster root or a path template
    changed since, so the run's own record decides."""
    folder = record_folder(cluster, "retention", feed)
    if not fs.exists(folder):
        return frozenset()
    found = set()
    for status in fs.list(folder):
        if status.is_dir or not status.name.endswith(".json") or status.name.startswith("."):
            continue
        record: RetentionRecord = parse_record(RetentionRecord, fs.read(status.path), status.path)
        if record.run_id in runs and record.action_taken == "archive":
            found.add(record.run_id)
    return frozenset(found)


def _require_files(feed: Feed, where: FeedLocations) -> None:
    if where.is_table:
        raise UsageError(
            f"The feed '{feed.name}' is a catalog table on cluster '{where.cluster}': its partitions are read through "
            "the Hive metastore client, which runs in Spark's JVM, so --listing lists file feeds only; without "
            f"--listing the window's partitions are named, and `toolkit events --feed {feed.name}` shows what was "
            "published and evicted.")


def _window(feed: Feed, cluster: str, first: datetime, last: datetime) -> list[datetime]:
    grid = feed_grid(feed, cluster)
    count = grid.count_between(first, last)
    if count > MAX_INSTANCES:
        raise UsageError(f"The window {format_timestamp(first)} .. {format_timestamp(last)} holds {count} instances "
                         f"of feed '{feed.name}', more than the {MAX_INSTANCES} --listing lists at once: give a "
                         "smaller window with --from and --to.")
    return list(grid.between(first, last))


def _listed(t: datetime, path: str, stored: Stored, events: Sequence[DatasetEvent], flag: str | None,
            archiving: frozenset[str]) -> ListedInstance:
    newest = events[-1] if events else None
    evicted = newest if newest is not None and newest.kind == EVICTED else None
    # the run that made what is listed: none for data that came back after its eviction (no event says whose)
    published = None if evicted is not None and stored.present else next(
        (event for event in reversed(events) if event.kind != EVICTED), None)
    state = state_of(stored, flag is not None, newest, path, archiving)
    return ListedInstance(
        t, state, path, stored.size, stored.created_ms, RunRef.of(published), RunRef.of(evicted),
        evicted.location if evicted is not None and state == ListingState.ARCHIVED else None, stored.links)


def state_of(stored: Stored, flagged: bool, newest: DatasetEvent | None, path: str,
             archiving: frozenset[str] = frozenset()) -> ListingState:
    """An instance's state from what storage holds at `path` and the ledger's newest event of it (see ListingState):
    storage decides what is there; the ledger decides whether what is gone was evicted or archived, and makes a
    published instance available without its flag (a producer that publishes records it as complete)."""
    if stored.present:
        published = newest is not None and newest.kind != EVICTED
        if flagged:
            return ListingState.AVAILABLE if stored.flag_ms is not None or published else ListingState.PARTIAL
        return ListingState.AVAILABLE if stored.visible or published else ListingState.EMPTY
    if newest is not None and newest.kind == EVICTED:
        # an eviction's event names where the data went: the archive's path when its run archived (`archiving`)
        moved = normalize_uri(newest.location) != normalize_uri(path) and newest.run_id in archiving
        return ListingState.ARCHIVED if moved else ListingState.EVICTED
    return ListingState.MISSING
