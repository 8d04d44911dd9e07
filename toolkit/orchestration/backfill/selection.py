"""Which steps a backfill runs: the processes and feeds named, or everything a feed's data reaches on a cluster
(`--downstream-of`): the processes that read it there, their outputs' readers in turn, and every replication of
those feeds into their target clusters, with what reads the copies there."""

from __future__ import annotations

from collections import deque

from toolkit.core.entities.model import FeedClusterType, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.orchestration.backfill.steps import ProcessStep, ReplicationStep, Step


def selected_steps(repo: ConfigRepo, cluster: str, processes: list[str], feeds: list[str],
                   downstream_of: str | None) -> list[Step]:
    """The steps, each once, in the order they were named or reached; UsageError for a name that cannot be
    backfilled, with what to name instead."""
    repo.cluster(cluster)
    steps: list[Step] = []
    for name in processes:
        steps.append(_process_step(repo, repo.process(name), cluster))
    for name in feeds:
        replications = _replications(repo, name, cluster)
        if not replications:
            raise UsageError(f"Feed '{name}' is not replicated from cluster '{cluster}' (it has no `type: target` "
                             "cluster with it as a source): a backfill runs a feed's replications; name the process "
                             "that writes it with --process.")
        steps.extend(replications)
    if downstream_of is not None:
        steps.extend(_downstream(repo, downstream_of, cluster))
    if not steps:
        raise UsageError("Nothing to backfill: name processes with --process, feeds to replicate with --feed, or a "
                         "feed with --downstream-of.")
    return list(dict.fromkeys(steps))


def _process_step(repo: ConfigRepo, process: Process, cluster: str) -> ProcessStep:
    if process.cluster(cluster) is None:
        on = ", ".join(c.name for c in process.clusters)
        raise UsageError(f"Process '{process.name}' does not run on cluster '{cluster}' (it runs on {on}): give "
                         "its cluster with --cluster.")
    if process.is_batch_consumer:
        raise UsageError(f"Process '{process.name}' is a batch consumer (no frequency): it has no instances to "
                         "backfill; `toolkit trigger` runs its batches as their events come.")
    return ProcessStep(process.name, cluster)


def _replications(repo: ConfigRepo, feed_name: str, source: str) -> list[ReplicationStep]:
    """The feed's replications into each of its targets, when `source` is one of its sources."""
    feed = repo.feed(feed_name)
    on = feed.cluster(source)
    if on is None or on.type is not FeedClusterType.SOURCE:
        return []
    return [ReplicationStep(feed.name, c.name) for c in feed.clusters if c.type is FeedClusterType.TARGET]


def _downstream(repo: ConfigRepo, feed_name: str, cluster: str) -> list[Step]:
    """Breadth first from the feed on the cluster: its readers (batch consumers left out: they have no instances),
    then their outputs' readers, and the replications of each feed reached, with their copies' readers."""
    feed = repo.feed(feed_name)
    if feed.cluster(cluster) is None:
        raise UsageError(f"Feed '{feed_name}' is not on cluster '{cluster}': give a cluster it is on with --cluster.")
    found: list[Step] = []
    seen = {(feed_name, cluster)}
    todo = deque([(feed_name, cluster)])
    while todo:
        name, on = todo.popleft()
        reached: list[tuple[str, str]] = []
        for _, process in sorted(repo.processes.items()):
            if process.is_batch_consumer or process.cluster(on) is None \
                    or all(item.feed != name for item in process.inputs):
                continue
            found.append(ProcessStep(process.name, on))
            reached.extend((output.feed, on) for output in process.outputs)
        for replication in _replications(repo, name, on):
            found.append(replication)
            reached.append((name, replication.target))
        for item in reached:
            if item not in seen:
                seen.add(item)
                todo.append(item)
    if not found:
        raise UsageError(f"Nothing reads feed '{feed_name}' on cluster '{cluster}' and it is replicated nowhere from "
                         "there: there is nothing downstream of it to backfill.")
    return found
