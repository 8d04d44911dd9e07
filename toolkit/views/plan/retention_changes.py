"""What a change does to the data retention manages, per feed and cluster, read from the cluster's storage with
retention's own planner (toolkit/planners/retention/feed_plans.py) for the base definition and for the new one:

- a retention limit, action or type changed, or retention added: the instances the next retention call will evict
  that the base definition keeps, or archives when the new one deletes (destructive when there is any);
- retention removed from a feed on a cluster: the instances it no longer evicts (a warning: data no longer managed);
- a feed removed from the repo, or from a cluster: its instances left on that cluster, orphaned (destructive).

Storage is read as feed_storage.py reads it. Where it is not read (a catalog table, a cluster only Hadoop's client
reaches), the change is destructive when the new definition's cut-off is later than the base's, and says that
storage was not read."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from typing import NamedTuple

from toolkit.core.el.templates import PathTemplate
from toolkit.core.el.timezones import UTC, resolve_zone
from toolkit.core.entities.model import Cluster, Feed, FeedCluster, Retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.retention_cadence import retention_end
from toolkit.core.storage.filesystem import FileSystem
from toolkit.forked_map import forked_map
from toolkit.planners.retention.cutoff import cutoff
from toolkit.planners.retention.shared_folders import neighbours
from toolkit.views.plan.changes import Change
from toolkit.views.plan.comparison import Comparison
from toolkit.views.plan.feed_storage import FeedStorage, InstancesByPath, instances_before, sized, unread_reason
from toolkit.views.plan.intervals import describe

NOTHING = datetime.min.replace(tzinfo=UTC)  # a cut-off before every instance: retention evicts nothing


def retention_changes(comparison: Comparison) -> list[Change]:
    """The changes to retained data of every feed in the base (on the comparison's cluster only, when given). Each
    feed's storage is read apart from the others': by forked workers beside this process when storage is read and
    every file system read allows it (a year of hourly instances is a walk of 90,000 folders, which the kernel does
    faster side by side)."""
    calls = list(_calls(comparison))
    return forked_map(_made, calls, alone=not comparison.storage.read_apart((call.feed, call.cluster)
                                                                            for call in calls))


class _Call(NamedTuple):
    """A change to make, and the feed and cluster whose storage it reads."""

    feed: Feed
    cluster: Cluster
    make: Callable[[], Change]


def _made(call: _Call) -> Change:
    return call.make()


def _calls(comparison: Comparison) -> Iterator[_Call]:
    base, head, cluster_name, storage = comparison.base, comparison.head, comparison.cluster, comparison.storage
    for old in base.feeds.values():
        new = head.feeds.get(old.name)
        for old_on in old.clusters:
            if cluster_name is not None and old_on.name != cluster_name:
                continue
            cluster = head.clusters.get(old_on.name) or base.clusters.get(old_on.name)
            if cluster is None:
                continue
            new_on = new.cluster(old_on.name) if new is not None else None
            if new is None or new_on is None:
                yield _Call(old, cluster, partial(_orphaned, base, head, old, cluster, storage, new is None))
            elif (old_on.retention is not None or new_on.retention is not None) and _what_retention_reads(
                    old, old_on) != _what_retention_reads(new, new_on):
                yield _Call(new, cluster, partial(_retention_edited, comparison, old, new, cluster))
    for new in head.feeds.values():  # retention added on a cluster where the feed is new to it: evicts at its next call
        known = base.feeds.get(new.name)
        for new_on in new.clusters:
            if (cluster_name is None or new_on.name == cluster_name) and new_on.retention is not None and (
                    known is None or known.cluster(new_on.name) is None):
                cluster = head.clusters.get(new_on.name)
                if cluster is not None:
                    before = _predecessor(base, head, new, new_on.name) if known is None else None
                    yield _Call(new, cluster, partial(_retention_edited, comparison, before, new, cluster))


def _what_retention_reads(feed: Feed, on: FeedCluster) -> tuple[object, ...]:
    """What decides which instances retention evicts, besides the storage: its limit, action and type, the
    validity (it stops at the end), the zone (the cut-off is local time) and the feed's `retention.*` properties."""
    return (on.retention, on.validity, feed.timezone,
            sorted((key, value) for key, value in feed.properties.items() if key.startswith("retention.")))


def _edits(old: Feed | None, new: Feed, cluster: str) -> str:
    """The retention-relevant fields that differ, as the change's title."""
    old_on = old.cluster(cluster) if old is not None else None
    new_on = new.cluster(cluster)
    assert new_on is not None
    old_retention = old_on.retention if old_on is not None else None
    edits = [f"retention {_describe(old_retention)} -> {_describe(new_on.retention)}"]
    if old is None or old_on is None:
        return edits[0]
    if old_on.validity != new_on.validity:
        edits.append(f"validity {describe(old_on.validity)} -> {describe(new_on.validity)}")
    if old.timezone != new.timezone:
        edits.append(f"timezone {old.timezone} -> {new.timezone}")
    properties = sorted({key for key in (*old.properties, *new.properties) if key.startswith("retention.")
                         and old.properties.get(key) != new.properties.get(key)})
    edits += [f"property {key} {old.properties.get(key, 'unset')} -> {new.properties.get(key, 'unset')}"
              for key in properties]
    return "; ".join(edits)


def _describe(retention: Retention | None) -> str:
    if retention is None:
        return "none"
    return f"{retention.limit} ({retention.action}{'' if retention.type == 'instance' else ', ' + retention.type})"


def _retention_edited(comparison: Comparison, old: Feed | None, new: Feed, cluster: Cluster) -> Change:
    base, head, now, storage, repo_path = (comparison.base, comparison.head, comparison.now, comparison.storage,
                                           comparison.repo_path)
    old_on = old.cluster(cluster.name) if old is not None else None
    new_on = new.cluster(cluster.name)
    assert new_on is not None
    old_retention = old_on.retention if old_on is not None else None
    what = _edits(old, new, cluster.name)
    command = (shlex.join(["toolkit", "retain", "--repo", repo_path, "--feed", new.name, "--cluster", cluster.name,
                           "--dry-run"])
               if new_on.retention is not None else None)
    # what the base archived, the new definition deletes: no copy is kept of it any more
    uncopied = (old_retention is not None and old_retention.action == "archive" and new_on.retention is not None
                and new_on.retention.action != "archive")
    fs = storage.file_system(new, cluster)
    if fs is None:
        later = uncopied or _cut_off(new, cluster.name, now) > _cut_off(old, cluster.name, now)
        return Change(new.name, "feed", f"{what}; storage not read ({unread_reason(new, cluster)})", cluster.name,
                      destructive=later, warning=not later, command=command)
    before, after = _both_evicted(base, head, old, new, cluster, fs, now)
    if new_on.retention is None:
        kept = sized(fs, before.values())
        return Change(new.name, "feed", f"{what}: {len(kept)} instance(s) no longer evicted", cluster.name,
                      warning=True, instances=kept, read_storage=True)
    evicted = sized(fs, [instance for key, instance in after.items() if uncopied or key not in before])
    verb = "archived" if new_on.retention.action == "archive" else "deleted"
    spared = "keeps or archives" if uncopied else "keeps"
    return Change(new.name, "feed", f"{what}: {len(evicted)} instance(s) {verb} at the next retention call that the "
                  f"base definition {spared}", cluster.name, destructive=bool(evicted), instances=evicted,
                  read_storage=True, command=command)


def _orphaned(base: ConfigRepo, head: ConfigRepo, old: Feed, cluster: Cluster, storage: FeedStorage,
              feed_removed: bool) -> Change:
    what = ("removed from the repo" if feed_removed else f"removed from cluster '{cluster.name}'")
    adopted = _adopted(head, old, cluster.name)
    fs = storage.file_system(old, cluster)
    if fs is None:
        return Change(old.name, "feed", f"{what}: its data on the cluster is no longer managed; storage not read "
                      f"({unread_reason(old, cluster)})", cluster.name, destructive=not adopted)
    left = sized(fs, [instance for (kind, _), instance in instances_before(base, old, cluster, fs).items()
                      if kind not in adopted])
    taken = "".join(f"; its {kind} location is feed '{name}''s now" for kind, name in sorted(adopted.items()))
    return Change(old.name, "feed", f"{what}: {len(left)} instance(s) left on the cluster, orphaned (no retention "
                  f"or other action manages them){taken}", cluster.name, destructive=bool(left), instances=left,
                  read_storage=True)


def _predecessor(base: ConfigRepo, head: ConfigRepo, new: Feed, cluster: str) -> Feed | None:
    """The feed of the base, gone from the head, whose locations on the cluster a new feed has (a feed renamed):
    what retention evicted there until now is that feed's."""
    wanted = dict(new.locations_on(cluster))
    return next((feed for feed in base.feeds.values() if feed.name not in head.feeds and feed.cluster(cluster)
                 is not None and feed.table_on(cluster) is None and dict(feed.locations_on(cluster)) == wanted
                 and wanted), None)


def _adopted(head: ConfigRepo, old: Feed, cluster: str) -> dict[str, str]:
    """The locations of a removed feed that a feed of the head has the same template for on the cluster (a feed
    renamed): kind -> that feed. Their instances are not orphaned."""
    templates = {text: feed.name for feed in head.feeds.values() if feed.cluster(cluster) is not None
                 and feed.table_on(cluster) is None for text in feed.locations_on(cluster).values()}
    return {kind: templates[text] for kind, text in old.locations_on(cluster).items() if text in templates}


def _cut_off(feed: Feed | None, cluster: str, now: datetime) -> datetime:
    """Before when the definition evicts at `now` (the earliest instant when it evicts nothing)."""
    on = feed.cluster(cluster) if feed is not None else None
    if feed is None or on is None or on.retention is None or now >= retention_end(feed, on):
        return NOTHING
    return cutoff(now, on.retention.limit, resolve_zone(feed.timezone))


def _both_evicted(base: ConfigRepo, head: ConfigRepo, old: Feed | None, new: Feed, cluster: Cluster, fs: FileSystem,
                  now: datetime) -> tuple[InstancesByPath, InstancesByPath]:
    """What retention would evict at `now` as the base defines the feed, and as the head does, by location and path.
    When both read the same locations alike (the same templates, zone and neighbours), one walk at the later
    cut-off serves both: an instance is evicted exactly when its time is before the cut-off."""
    old_cut, new_cut = _cut_off(old, cluster.name, now), _cut_off(new, cluster.name, now)
    if old is None or not _walked_alike(base, head, old, new, cluster.name):
        return (_evicted(base, old, cluster, fs, old_cut) if old is not None else {},
                _evicted(head, new, cluster, fs, new_cut))
    walked = _evicted(head, new, cluster, fs, max(old_cut, new_cut))
    return ({key: item for key, item in walked.items() if item.time < old_cut},
            {key: item for key, item in walked.items() if item.time < new_cut})


def _walked_alike(base: ConfigRepo, head: ConfigRepo, old: Feed, new: Feed, cluster: str) -> bool:
    locations = old.locations_on(cluster)
    if locations != new.locations_on(cluster) or old.timezone != new.timezone:
        return False
    return all(neighbours(base, old.name, cluster, PathTemplate(text)) == neighbours(head, new.name, cluster,
                                                                                  PathTemplate(text))
               for text in locations.values() if PathTemplate(text).is_dated)


def _evicted(repo: ConfigRepo, feed: Feed, cluster: Cluster, fs: FileSystem, cut_off: datetime) -> InstancesByPath:
    """What retention of `feed` as `repo` defines it would evict on `cluster` before `cut_off`."""
    return {} if cut_off == NOTHING else instances_before(repo, feed, cluster, fs, cut_off)
