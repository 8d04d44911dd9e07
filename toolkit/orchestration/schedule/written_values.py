"""The definitions whose values a cluster's generated schedule holds, checked before any call is planned: a value
no generated line may hold (a control character, one XML refuses, a bidirectional override:
toolkit/core/entities/scheduled_values.py) stops the schedule with exit 2 naming its entity and field, as lint RP010
does, since `toolkit schedule` may run on a repo nobody linted."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.core.entities.model import Entity, FeedClusterType
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.scheduled_values import scheduled_values
from toolkit.errors import UsageError


def refuse_unwritable(repo: ConfigRepo, cluster: str) -> None:
    """UsageError (exit 2) on the first value of an entity the schedule of `cluster` reaches that no generated line
    may hold."""
    for entity in _reached(repo, cluster):
        for value in scheduled_values(entity):
            problem = value.problem()
            if problem is not None:
                raise UsageError(f"{entity.kind.label} {entity.name!r}: {problem}")


def _reached(repo: ConfigRepo, cluster: str) -> Iterator[Entity]:
    """The cluster, its processes and feeds, the feeds its processes read or write, the datasources its feeds import
    from or export to, and the clusters its feeds replicate from (each once)."""
    seen: set[int] = set()
    for entity in _candidates(repo, cluster):
        if entity is not None and id(entity) not in seen:
            seen.add(id(entity))
            yield entity


def _candidates(repo: ConfigRepo, cluster: str) -> Iterator[Entity | None]:
    yield repo.cluster(cluster)
    for process in repo.processes.values():
        if process.cluster(cluster) is not None:
            yield process
            yield from (repo.feeds.get(use.feed) for use in (*process.inputs, *process.outputs))
    for feed in repo.feeds.values():
        on = feed.cluster(cluster)
        if on is None:
            continue
        yield feed
        if on.import_ is not None:
            yield repo.datasources.get(on.import_.source.name)
        if on.export is not None:
            yield repo.datasources.get(on.export.target.name)
        if on.type is FeedClusterType.TARGET:
            yield from (repo.clusters.get(c.name) for c in feed.clusters if c.type is FeedClusterType.SOURCE)
