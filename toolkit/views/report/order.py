"""The order of the page's entities: the graph's (toolkit/views/graph/build.py) producer and consumer edges, upstream
first, so the grids below a failed one are those its failure holds up; ties by node id (`feed/...` before
`process/...`, then by name)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from toolkit.core.entities.kinds import Kind
from toolkit.views.graph.model import EdgeKind, Graph

ORDERED_KINDS = (Kind.FEED, Kind.PROCESS)


def dependency_order(graph: Graph) -> list[str]:
    """The graph's feed and process node ids (`feed/clicks`), each after everything it depends on (Kahn's
    algorithm, the smallest id first among the ready ones; a cycle's members, which the linter refuses, last by
    id)."""
    ids = sorted(node.id for node in graph.nodes if node.kind in ORDERED_KINDS)
    known = set(ids)
    edges = [(edge.source, edge.target) for edge in graph.edges
             if edge.kind in (EdgeKind.PRODUCER, EdgeKind.CONSUMER) and edge.source in known and edge.target in known]
    return _topological(ids, edges)


def _topological(ids: list[str], edges: Iterable[tuple[str, str]]) -> list[str]:
    after: dict[str, list[str]] = {node: [] for node in ids}
    waiting = dict.fromkeys(ids, 0)
    for source, target in edges:
        after[source].append(target)
        waiting[target] += 1
    ready = [node for node in ids if waiting[node] == 0]
    heapq.heapify(ready)
    ordered = []
    while ready:
        node = heapq.heappop(ready)
        ordered.append(node)
        for target in after[node]:
            waiting[target] -= 1
            if waiting[target] == 0:
                heapq.heappush(ready, target)
    placed = set(ordered)
    return ordered + [node for node in ids if node not in placed]
