"""What a changed data path does to a feed's instances on a cluster: the instances under the old path are no longer
reached by anything (retention, processes, replication all read the new one), so they are named, with their count,
as made unreachable (destructive). A location removed counts the same; a catalog table renamed is said, unread. A
cluster whose root (its write endpoint) moved leaves every feed's instances, and its ledger, under the old one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from toolkit.secrets_masking import masked
from toolkit.views.plan.changes import Change
from toolkit.views.plan.comparison import Comparison, FeedOnCluster
from toolkit.views.plan.feed_storage import instances_before, sized, unread_reason


def location_changes(comparison: Comparison) -> Iterator[Change]:
    yield from _roots_moved(comparison)
    for feed in comparison.kept_feeds():
        name = feed.cluster.name
        old_table, new_table = feed.old.table_on(name), feed.new.table_on(name)
        if old_table is not None and old_table != new_table:
            reason = unread_reason(feed.old, feed.cluster)
            yield Change(feed.old.name, "feed", f"table {old_table} -> {new_table or 'files'}: the partitions of "
                         f"{old_table} are no longer reached; storage not read ({reason})", name, destructive=True)
        old, new = feed.old.locations_on(name), feed.new.locations_on(name)
        moved = sorted(kind for kind, template in old.items() if new.get(kind) != template)
        if moved:
            yield _moved(comparison, feed, moved)


def _moved(comparison: Comparison, feed: FeedOnCluster, moved: list[str]) -> Change:
    name = feed.cluster.name
    old, new = feed.old.locations_on(name), feed.new.locations_on(name)
    what = "; ".join(f"location {kind} {old[kind]} -> {new.get(kind, 'none')}" for kind in moved)
    fs = comparison.storage.file_system(feed.old, feed.cluster)
    if fs is None:
        return Change(feed.old.name, "feed", f"{what}: the instances under the old path are no longer reached; "
                      f"storage not read ({unread_reason(feed.old, feed.cluster)})", name, destructive=True)
    before = instances_before(comparison.base, feed.old, feed.cluster, fs)
    reached: set[tuple[str, datetime]] = set()
    if comparison.storage.file_system(feed.new, feed.cluster) is not None:
        reached = {(kind, instance.time)
                   for (kind, _), instance in instances_before(comparison.head, feed.new, feed.cluster, fs).items()}
    left = sized(fs, [instance for (kind, _), instance in before.items()
                      if kind in moved and (kind, instance.time) not in reached])
    return Change(feed.old.name, "feed", f"{what}: {len(left)} instance(s) left under the old path, unreachable "
                  "(retention, processes and replication read the new one; move them there to keep them)", name,
                  destructive=bool(left), instances=left, read_storage=True)


def _roots_moved(comparison: Comparison) -> Iterator[Change]:
    for name, old in comparison.base.clusters.items():
        new = comparison.head.clusters.get(name)
        if new is None or not comparison.concerns(name) or old.write_endpoint == new.write_endpoint:
            continue
        what = masked(f"root {old.write_endpoint} -> {new.write_endpoint}")
        yield Change(name, "cluster", f"{what}: its ledger (records, leases, events) stays under the old root; the "
                     "toolkit starts a new one under the new", name, destructive=True)
        for feed in comparison.base.feeds.values():
            if feed.cluster(name) is None:
                continue
            fs = comparison.storage.file_system(feed, old)
            if fs is None:
                yield Change(feed.name, "feed", f"cluster {what}: the instances under the old root are no longer "
                             f"reached; storage not read ({unread_reason(feed, old)})", name, destructive=True)
                continue
            left = sized(fs, instances_before(comparison.base, feed, old, fs).values())
            if left:
                yield Change(feed.name, "feed", f"cluster {what}: {len(left)} instance(s) left under the old root, "
                             "unreachable (move them to the new root to keep them)", name, destructive=True,
                             instances=left, read_storage=True)
