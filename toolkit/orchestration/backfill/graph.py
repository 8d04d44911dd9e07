"""The instances a backfill runs and what each waits for: an instance of a step waits for every instance of the
backfill that writes a feed instance it reads (a consumer after its producers, a replication after its source
instance), and they are ordered so that each comes after what it waits for, oldest time first."""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.orchestration.backfill.steps import FeedInstance, Step, grid_count, instances, reads, writes

# A window this large is a mistake more often than a plan (a minutely process over a year): refused, with the count.
MAX_INSTANCES = 20_000


@dataclass(frozen=True)
class Node:
    """One instance of one step."""

    step: Step
    time: datetime

    def __str__(self) -> str:
        return f"{self.step.label} {format_timestamp(self.time)}"


@dataclass(frozen=True)
class BackfillGraph:
    """`order`: every node, each after the nodes it waits for (`after`), the oldest first among those free."""

    steps: tuple[Step, ...]
    order: tuple[Node, ...]
    after: dict[Node, tuple[Node, ...]]

    @property
    def entities(self) -> str:
        """`N entities` (`1 entity`), as the plan and the summary say it."""
        return f"{len(self.steps)} entit{'y' if len(self.steps) == 1 else 'ies'}"

    def of(self, step: Step) -> list[Node]:
        return [node for node in self.order if node.step == step]


def build_graph(repo: ConfigRepo, steps: list[Step], first: datetime, last: datetime) -> BackfillGraph:
    if first > last:
        raise UsageError(f"--from {format_timestamp(first)} is after --to {format_timestamp(last)}: give the "
                         "window's first instance, then its last.")
    counted = sum(grid_count(step, repo, first, last) for step in steps)  # before a huge window is listed
    if counted > MAX_INSTANCES:
        raise UsageError(f"The backfill from {format_timestamp(first)} to {format_timestamp(last)} has {counted} "
                         f"instances, more than {MAX_INSTANCES}: split the window.")
    nodes = [Node(step, t) for step in steps for t in instances(step, repo, first, last)]
    producers: dict[tuple[str, str], dict[datetime, list[Node]]] = defaultdict(lambda: defaultdict(list))
    for node in nodes:
        for written in writes(node.step, repo, node.time):
            assert written.time is not None
            producers[(written.feed, written.cluster)][written.time].append(node)
    after = {node: _waits_for(node, reads(node.step, repo, node.time), producers) for node in nodes}
    rank = {step: index for index, step in enumerate(steps)}
    return BackfillGraph(tuple(steps), _ordered(nodes, after, rank), after)


def _waits_for(node: Node, read: list[FeedInstance],
               producers: dict[tuple[str, str], dict[datetime, list[Node]]]) -> tuple[Node, ...]:
    """The nodes writing what `node` reads; a window picked at run time (latest(), future()) waits for every
    instance of its feed the backfill writes."""
    found: list[Node] = []
    for item in read:
        by_time = producers.get((item.feed, item.cluster), {})
        found.extend(by_time.get(item.time, []) if item.time is not None
                     else [n for ns in by_time.values() for n in ns])
    return tuple(dict.fromkeys(n for n in found if n != node))


def _ordered(nodes: list[Node], after: dict[Node, tuple[Node, ...]], rank: dict[Step, int]) -> tuple[Node, ...]:
    """Kahn's order, the oldest time (then the step named first) first among the nodes whose waits are met;
    UsageError naming a node of a cycle (an instance that reads what it writes, through others)."""
    blocking = {node: len(waits) for node, waits in after.items()}
    dependents: dict[Node, list[Node]] = defaultdict(list)
    for node, waits in after.items():
        for wait in waits:
            dependents[wait].append(node)
    index = {node: k for k, node in enumerate(nodes)}

    def key(node: Node) -> tuple[datetime, int, int]:
        return node.time, rank[node.step], index[node]

    ready = [key(node) for node in nodes if blocking[node] == 0]
    heapq.heapify(ready)
    order: list[Node] = []
    while ready:
        node = nodes[heapq.heappop(ready)[2]]
        order.append(node)
        for dependent in dependents[node]:
            blocking[dependent] -= 1
            if blocking[dependent] == 0:
                heapq.heappush(ready, key(dependent))
    if len(order) < len(nodes):
        stuck = next(node for node in nodes if blocking[node] > 0)
        raise UsageError(f"The instances of the backfill wait for each other in a cycle ({stuck} is one of them): "
                         "backfill the entities of the cycle one at a time.")
    return tuple(order)
