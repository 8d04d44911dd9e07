"""Colouring the graph from one cluster's ledger: each process gets the status of its newest recorded instance
and each feed the kind of its newest instance's last dataset event there (published, replaced, evicted), or,
without events, its producers' newest status; every node keeps its `RECENT` newest instances for its details.

Statuses are shown as recorded: a RUNNING record whose run died stays RUNNING here (`toolkit status` tells
it apart). Clusters get no status.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from toolkit.entities.kinds import Kind
from toolkit.graph.model import Edge, EdgeKind, Graph, Instance, Node

if TYPE_CHECKING:  # the ledger's code is loaded by the caller that opens one: `toolkit graph` without it starts faster
    from toolkit.ledger.store import Ledger

RECENT = 10


def with_statuses(graph: Graph, ledger: Ledger, recent: int = RECENT) -> Graph:
    """`graph` with the statuses and recent instances `ledger` (of `graph.cluster`) records."""
    processes = {node.id: _process_instances(ledger, node.label, recent)
                 for node in graph.nodes if node.kind is Kind.PROCESS}
    nodes = []
    for node in graph.nodes:
        if node.kind is Kind.PROCESS:
            nodes.append(_coloured(node, processes[node.id]))
        elif node.kind is Kind.FEED:
            events = _feed_instances(ledger, node.label, recent)
            nodes.append(_coloured(node, events) if events else _from_producers(node, graph.edges, processes))
        else:
            nodes.append(node)
    return replace(graph, nodes=tuple(nodes), ledger=True)


def _coloured(node: Node, recent: list[Instance]) -> Node:
    """`recent` is newest first; the node's status is the newest one's."""
    return replace(node, status=recent[0].status if recent else None, recent=tuple(recent))


def _from_producers(node: Node, edges: tuple[Edge, ...], processes: dict[str, list[Instance]]) -> Node:
    """A feed without events: its producers' newest instance status (its recent list stays empty)."""
    produced = [newest for edge in edges if edge.kind is EdgeKind.PRODUCER and edge.target == node.id
                for newest in processes.get(edge.source, [])[:1]]
    # `yyyy-MM-ddTHH:mmZ` sorts as time does
    return replace(node, status=max(produced, key=lambda item: item.time).status) if produced else node


def _process_instances(ledger: Ledger, process: str, recent: int) -> list[Instance]:
    """The newest `recent` instance records, newest first (instance folders without a record are skipped)."""
    found = []
    for t in sorted(ledger.recorded_times(process), reverse=True):
        record = ledger.instance(process, t)
        if record is not None:
            found.append(Instance(record.time, record.status, record.run_id))
        if len(found) == recent:
            break
    return found


def _feed_instances(ledger: Ledger, feed: str, recent: int) -> list[Instance]:
    """The newest `recent` instances with events, newest first, each as its last event."""
    found = []
    for t in reversed(ledger.feed_event_times(feed)[-recent:]):
        events = ledger.events(feed, t)
        if events:
            last = events[-1]
            found.append(Instance(last.time, last.kind, last.run_id))
    return found
