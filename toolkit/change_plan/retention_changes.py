"""What a change does to the data retention manages, per feed and cluster, read from the cluster's storage with
retention's own planner (toolkit/retention/feed_plans.py) for the base definition and for the new one:

- a retention limit, action or type changed, or retention added: the instances the next retention call will evict
  that the base definition keeps, or archives when the new one deletes (destructive when there is any);
- retention removed from a feed on a cluster: the instances it no longer evicts (a warning: data no longer managed);
- a feed removed from the repo, or from a cluster: its instances left on that cluster, orphaned (destructive).

Storage is read without a JVM (a `file://` root, or HDFS through WebHDFS: toolkit/runtime/cluster_files.py). A
catalog table, or a cluster only Hadoop's client reaches, is not read: the change is then destructive when the new
definition's cut-off is later than the base's, and says that storage was not read."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from toolkit.change_plan.changes import Change, PlannedInstance
from toolkit.el.timezones import UTC, resolve_zone
from toolkit.entities.model import Cluster, Feed, Retention
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.instances.retention_cadence import retention_end
from toolkit.retention.cutoff import cutoff
from toolkit.retention.feed_plans import feed_plans
from toolkit.runtime.cluster_files import cluster_file_system, reachable_without_jvm
from toolkit.storage.filesystem import FileSystem

FOREVER = datetime(9999, 1, 1, tzinfo=UTC)  # a cut-off past every instance: all of a feed's data


def retention_changes(base: ConfigRepo, head: ConfigRepo, now: datetime, cluster_name: str | None,
                      repo_path: str) -> Iterator[Change]:
    """The changes to retained data of every feed in `base` (on `cluster_name` only, when given), at `now`."""
    systems: dict[str, FileSystem] = {}
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
                yield _orphaned(base, old, cluster, systems, new is None)
            elif old_on.retention != new_on.retention:
                yield _retention_edited(base, head, old, new, cluster, now, systems, repo_path)
    for new in head.feeds.values():  # retention added on a cluster where the feed is new to it: evicts at its next call
        known = base.feeds.get(new.name)
        for new_on in new.clusters:
            if (cluster_name is None or new_on.name == cluster_name) and new_on.retention is not None and (
                    known is None or known.cluster(new_on.name) is None):
                cluster = head.clusters.get(new_on.name)
                if cluster is not None:
                    yield _retention_edited(base, head, None, new, cluster, now, systems, repo_path)


def _describe(retention: Retention | None) -> str:
    if retention is None:
        return "none"
    return f"{retention.limit} ({retention.action}{'' if retention.type == 'instance' else ', ' + retention.type})"


def _retention_edited(base: ConfigRepo, head: ConfigRepo, old: Feed | None, new: Feed, cluster: Cluster,
                      now: datetime, systems: dict[str, FileSystem], repo_path: str) -> Change:
    old_on = old.cluster(cluster.name) if old is not None else None
    new_on = new.cluster(cluster.name)
    assert new_on is not None
    old_retention = old_on.retention if old_on is not None else None
    what = f"retention {_describe(old_retention)} -> {_describe(new_on.retention)}"
    command = (f"toolkit retain --repo {repo_path} --feed {new.name} --cluster {cluster.name} --dry-run"
               if new_on.retention is not None else None)
    # what the base archived, the new definition deletes: no copy is kept of it any more
    uncopied = (old_retention is not None and old_retention.action == "archive" and new_on.retention is not None
                and new_on.retention.action != "archive")
    fs = _file_system(new, cluster, systems)
    if fs is None:
        later = uncopied or _cut_off(new, cluster.name, now) > _cut_off(old, cluster.name, now)
        return Change(new.name, "feed", f"{what}; storage not read ({_unread_reason(new, cluster)})", cluster.name,
                      destructive=later, warning=not later, command=command)
    before = _evicted(base, old, cluster, fs, now) if old is not None else {}
    after = _evicted(head, new, cluster, fs, now)
    if new_on.retention is None:
        kept = tuple(before.values())
        return Change(new.name, "feed", f"{what}: {len(kept)} instance(s) no longer evicted", cluster.name,
                      warning=True, instances=kept, read_storage=True)
    evicted = tuple(instance for key, instance in sorted(after.items()) if uncopied or key not in before)
    verb = "archived" if new_on.retention.action == "archive" else "deleted"
    spared = "keeps or archives" if uncopied else "keeps"
    return Change(new.name, "feed", f"{what}: {len(evicted)} instance(s) {verb} at the next retention call that the "
                  f"base definition {spared}", cluster.name, destructive=bool(evicted), instances=evicted,
                  read_storage=True, command=command)


def _orphaned(base: ConfigRepo, old: Feed, cluster: Cluster, systems: dict[str, FileSystem],
              feed_removed: bool) -> Change:
    what = ("removed from the repo" if feed_removed else f"removed from cluster '{cluster.name}'")
    fs = _file_system(old, cluster, systems)
    if fs is None:
        return Change(old.name, "feed", f"{what}: its data on the cluster is no longer managed; storage not read "
                      f"({_unread_reason(old, cluster)})", cluster.name, destructive=True)
    left = tuple(sorted(_every_instance(base, old, cluster, fs), key=lambda instance: instance.time))
    return Change(old.name, "feed", f"{what}: {len(left)} instance(s) left on the cluster, orphaned (no retention "
                  "or other action manages them)", cluster.name, destructive=bool(left), instances=left,
                  read_storage=True)


def _file_system(feed: Feed, cluster: Cluster, systems: dict[str, FileSystem]) -> FileSystem | None:
    """The cluster's file system when it is read without a JVM and the feed is a file feed; else None."""
    if feed.table_on(cluster.name) is not None or cluster.write_endpoint is None or not reachable_without_jvm(cluster):
        return None
    if cluster.name not in systems:
        systems[cluster.name] = cluster_file_system(cluster)
    return systems[cluster.name]


def _unread_reason(feed: Feed, cluster: Cluster) -> str:
    if feed.table_on(cluster.name) is not None:
        return "a catalog table: its partitions are read through Spark"
    if cluster.write_endpoint is None:
        return f"cluster '{cluster.name}' has no write interface"
    return f"cluster '{cluster.name}' is reached only through Hadoop's client (give it a WebHDFS address)"


def _cut_off(feed: Feed | None, cluster: str, now: datetime) -> datetime:
    """Before when the definition evicts at `now` (the earliest instant when it evicts nothing)."""
    on = feed.cluster(cluster) if feed is not None else None
    if feed is None or on is None or on.retention is None or now >= retention_end(feed, on):
        return datetime.min.replace(tzinfo=UTC)
    return cutoff(now, on.retention.limit, resolve_zone(feed.timezone))


def _evicted(repo: ConfigRepo, feed: Feed, cluster: Cluster, fs: FileSystem,
             now: datetime) -> dict[tuple[str, str], PlannedInstance]:
    """What retention of `feed` as `repo` defines it would evict on `cluster` at `now`, by location and path."""
    on = feed.cluster(cluster.name)
    if on is None or on.retention is None or now >= retention_end(feed, on):
        return {}
    return _planned(repo, feed, cluster, fs, _cut_off(feed, cluster.name, now))


def _every_instance(repo: ConfigRepo, feed: Feed, cluster: Cluster, fs: FileSystem) -> list[PlannedInstance]:
    return list(_planned(repo, feed, cluster, fs, FOREVER).values())


def _planned(repo: ConfigRepo, feed: Feed, cluster: Cluster, fs: FileSystem,
             cut_off: datetime) -> dict[tuple[str, str], PlannedInstance]:
    try:
        planned = feed_plans(repo, feed, cluster, fs, resolve_zone(feed.timezone), cut_off)
    except UsageError as err:
        raise UsageError(f"Feed '{feed.name}' on cluster '{cluster.name}': {err}") from None
    sizes = fs.total_sizes([instance.entry for plan in planned.plans for instance in plan.expired])
    return {(plan.kind, instance.path): PlannedInstance(instance.time, instance.path, sizes.get(instance.path, 0))
            for plan in planned.plans for instance in plan.expired}
