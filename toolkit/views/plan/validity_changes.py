"""What a changed validity on a cluster does to a feed's or a process's instances:

- dropped: the published instances now outside it, read from storage for a feed and from the ledger for a process.
  No process reads or writes them any more and replication skips them; they stay where they are (a warning);
- added: the instances up to now the base definition did not have, which no scheduled call has run or will run
  (the schedule calls the present): a backlog to fill (a warning), with the command that lists it.

What retention evicts differently because of a moved validity end is retention_changes.py's."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from datetime import datetime, timedelta

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed, Process, Validity
from toolkit.core.instances.grids import feed_grid, process_grid
from toolkit.views.plan.changes import Change, PlannedInstance
from toolkit.views.plan.comparison import Comparison
from toolkit.views.plan.feed_storage import instances_before, sized, unread_reason
from toolkit.views.plan.intervals import Interval, describe, outside, within
from toolkit.views.plan.published_runs import succeeded

LAST_SECOND = timedelta(seconds=1)


def validity_changes(comparison: Comparison) -> Iterator[Change]:
    for feed in comparison.kept_feeds():
        old, new = feed.old_on.validity, feed.new_on.validity
        if old != new:
            yield from _feed_dropped(comparison, feed.old, feed.cluster, old, new)
            yield from _added(comparison, feed.new, feed.cluster, old, new, feed_grid(feed.new, feed.cluster.name))
    for process in comparison.kept_processes():
        old, new = process.old_on.validity, process.new_on.validity
        if old != new and process.new.frequency is not None:
            yield from _process_dropped(comparison, process.old, process.cluster, old, new)
            yield from _added(comparison, process.new, process.cluster, old, new,
                              process_grid(process.new, process.cluster.name))


def _feed_dropped(comparison: Comparison, feed: Feed, cluster: Cluster, old: Validity,
                  new: Validity) -> Iterator[Change]:
    dropped = outside(old, new)
    if not dropped:
        return
    what = f"validity {describe(old)} -> {describe(new)}"
    fs = comparison.storage.file_system(feed, cluster)
    if fs is None:
        yield Change(feed.name, "feed", f"{what}: instances dropped from {_spans(dropped)}; storage not read "
                     f"({unread_reason(feed, cluster)})", cluster.name, warning=True)
        return
    published = sized(fs, [instance for instance in instances_before(comparison.base, feed, cluster, fs).values()
                           if within(instance.time, dropped)])
    if not published:
        return  # nothing published there: the definition change alone
    yield Change(feed.name, "feed", f"{what}: {len(published)} published instance(s) now outside the validity "
                 "(no process reads or writes them, replication skips them; they stay on storage)", cluster.name,
                 warning=True, instances=published, read_storage=True)


def _process_dropped(comparison: Comparison, process: Process, cluster: Cluster, old: Validity,
                     new: Validity) -> Iterator[Change]:
    dropped = outside(old, new)
    if not dropped:
        return
    what = f"validity {describe(old)} -> {describe(new)}"
    runs = succeeded(comparison.storage, cluster, process.name)
    if runs is None:
        yield Change(process.name, "process", f"{what}: instances dropped from {_spans(dropped)}; ledger not read "
                     f"({unread_reason(None, cluster)})", cluster.name, warning=True)
        return
    published = tuple(run.instance for run in runs if within(run.instance.time, dropped))
    if not published:
        return
    yield Change(process.name, "process", f"{what}: {len(published)} succeeded instance(s) now outside the validity "
                 "(their outputs stay published; no late-data rerun or rerun command reaches them)", cluster.name,
                 warning=True, instances=published, read_storage=True)


def _added(comparison: Comparison, entity: Feed | Process, cluster: Cluster, old: Validity, new: Validity,
           grid: InstanceGrid) -> Iterator[Change]:
    """The instances up to now the new validity adds that are not there yet (a feed's on storage; a process's in
    the ledger); the future ones are the schedule's."""
    added = tuple((start, min(end, comparison.now)) for start, end in outside(new, old) if start < comparison.now)
    due = [t for start, end in added for t in grid.between(start, end - LAST_SECOND)]
    if due:
        there = _present(comparison, entity, cluster)
        due = [t for t in due if t not in there]
    if not due:
        return
    kind = "feed" if isinstance(entity, Feed) else "process"
    command = None
    if isinstance(entity, Process):
        command = shlex.join(["toolkit", "rerun", "--repo", comparison.repo_path, "--process", entity.name,
                              "--cluster", cluster.name, "--from", format_timestamp(due[0]), "--to",
                              format_timestamp(due[-1]), "--status", "WAITING"])
    doer = "no scheduled call runs them" if isinstance(entity, Process) else "their producers and replication run " \
        "only the present"
    yield Change(entity.name, kind, f"validity {describe(old)} -> {describe(new)}: {len(due)} instance(s) added "
                 f"before now ({doer}): a backlog to fill", cluster.name, warning=True,
                 instances=tuple(PlannedInstance(t, "", 0) for t in due), command=command)


def _present(comparison: Comparison, entity: Feed | Process, cluster: Cluster) -> set[datetime]:
    """The instance times already there: a feed's on the cluster's storage, a process's succeeded in its ledger."""
    if isinstance(entity, Feed):
        fs = comparison.storage.file_system(entity, cluster)
        return set() if fs is None else {instance.time for instance in instances_before(
            comparison.head, entity, cluster, fs).values()}
    runs = succeeded(comparison.storage, cluster, entity.name)
    return {run.instance.time for run in runs or ()}


def _spans(intervals: tuple[Interval, ...]) -> str:
    return " and ".join(f"{format_timestamp(start)} to {format_timestamp(end)}" for start, end in intervals)

