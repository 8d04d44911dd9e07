"""What a change to a feed's replication does, per target cluster:

- a new target (a cluster added with `type: target`, or made one): the backlog replication will copy, the source
  instances in both validities up to now that the target does not hold yet, with their bytes on the source, read
  as retention reads storage (a warning: a backlog, no data lost);
- a target no longer replicated (its type changed): what it holds stays, and nothing new comes (a warning).
A target removed from the feed is retention_changes.py's: its data is orphaned there."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed, FeedClusterType
from toolkit.planners.replication import instance_for
from toolkit.services.runtime.submit import entrypoint, spark_submit
from toolkit.views.plan.changes import Change, PlannedInstance
from toolkit.views.plan.comparison import Comparison
from toolkit.views.plan.feed_storage import instances_before, sized, unread_reason

CATCH_UP = ("; the schedule copies only the present: the command catches up the window (the instances the source "
            "lacks in it are reported failed)")


def replication_changes(comparison: Comparison) -> Iterator[Change]:
    for new in comparison.head.feeds.values():
        old = comparison.base.feeds.get(new.name)
        for on in new.clusters:
            cluster = comparison.head.clusters.get(on.name)
            if cluster is None or not comparison.concerns(on.name):
                continue
            before = old.cluster(on.name) if old is not None else None
            was_target = before is not None and before.type is FeedClusterType.TARGET
            if on.type is FeedClusterType.TARGET and not was_target:
                yield _backlog(comparison, new, cluster)
            elif was_target and on.type is not FeedClusterType.TARGET:
                yield Change(new.name, "feed", f"no longer replicated into cluster '{on.name}' (type target -> "
                             f"{on.type.value if on.type else 'unset'}): what it holds stays, nothing new is copied",
                             on.name, warning=True)


def _backlog(comparison: Comparison, feed: Feed, target: Cluster) -> Change:
    on_target = feed.cluster(target.name)
    assert on_target is not None
    last = instance_for(feed, on_target, comparison.now)
    sources = [(comparison.head.clusters.get(on.name), on) for on in feed.clusters
               if on.type is FeedClusterType.SOURCE]
    if last is None:
        return Change(feed.name, "feed", f"replicated into cluster '{target.name}' from its validity start "
                      f"{format_timestamp(on_target.validity.start)}, after now: no backlog", target.name)
    held = _held(comparison, feed, target)
    copies: list[PlannedInstance] = []
    for source, on_source in sources:
        if source is None:
            continue
        fs = comparison.storage.file_system(feed, source)
        if fs is None or held is None:
            unread = source if fs is None else target
            return Change(feed.name, "feed", f"replicated into cluster '{target.name}': the backlog up to "
                          f"{format_timestamp(last)} is copied; storage not read ({unread_reason(feed, unread)})",
                          target.name, warning=True)
        start = max(on_target.validity.start, on_source.validity.start)
        end = min(on_target.validity.end, on_source.validity.end)
        copies += sized(fs, [instance for (kind, _), instance in instances_before(comparison.head, feed, source,
                                                                                     fs).items()
                             if kind == "data" and start <= instance.time < end and instance.time <= last
                             and instance.time not in held])
    backlog = tuple(sorted(copies, key=lambda instance: (instance.time, instance.path)))
    command = None
    if backlog:
        command = shlex.join([spark_submit(), entrypoint("replication.py"), "--repo", comparison.repo_path, "--feed",
                              feed.name, "--target", target.name, "--from", format_timestamp(backlog[0].time),
                              "--to", format_timestamp(backlog[-1].time)])
    return Change(feed.name, "feed", f"replicated into cluster '{target.name}' from "
                  f"{', '.join(on.name for _, on in sources) or 'no source'}: {len(backlog)} instance(s) to copy up "
                  f"to {format_timestamp(last)} (bytes as on the source)"
                  + (CATCH_UP if backlog else ""), target.name, warning=bool(backlog),
                  instances=backlog, read_storage=True, command=command)


def _held(comparison: Comparison, feed: Feed, target: Cluster) -> set[datetime] | None:
    """The instance times the target holds already (its data location), or None when it is not read."""
    fs = comparison.storage.file_system(feed, target)
    if fs is None:
        return None
    return {instance.time for (kind, _), instance in instances_before(comparison.head, feed, target, fs).items()
            if kind == "data"}
