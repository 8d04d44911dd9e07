"""Colouring the graph from one cluster's ledger: each process gets the status of its newest recorded instance
and each feed the kind of its newest instance's last dataset event there (published, replaced, evicted), or,
without events, the newest status of its producers and of its import; each datasource the status of the newest
import or export record of the feeds on its edges (toolkit/core/ledger/database_transfers.py), its recent instances
naming which (`import customers`); every node keeps its `RECENT` newest instances for its details.

Statuses are shown as recorded: a RUNNING record whose run died stays RUNNING here (`toolkit status` tells
it apart). Clusters get no status.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from toolkit.core.entities.kinds import Kind
from toolkit.views.graph.model import TRANSFER_EDGES, Edge, EdgeKind, Graph, Instance, Node

if TYPE_CHECKING:  # the ledger's code is loaded by the caller that opens one: `toolkit graph` without it starts faster
    from toolkit.core.ledger.database_transfers import ExportRecord, ImportRecord
    from toolkit.core.ledger.record_files import InstanceRecords
    from toolkit.core.ledger.store import Ledger

RECENT = 10
# An instance's record file in a feed's imports/ or exports/ folder (yyyyMMddTHHmmZ.json): its name sorts by time.
_RECORD_FILE = re.compile(r"^\d{8}T\d{4}Z\.json$")


def with_statuses(graph: Graph, ledger: Ledger, recent: int = RECENT) -> Graph:
    """`graph` with the statuses and recent instances `ledger` (of `graph.cluster`) records."""
    processes = {node.id: _process_instances(ledger, node.label, recent)
                 for node in graph.nodes if node.kind is Kind.PROCESS}
    # the import and export records of each edge between a feed and a datasource, newest first
    transfers = {edge: _transfer_instances(ledger, edge, recent) for edge in graph.edges if edge.kind in TRANSFER_EDGES}
    nodes = []
    for node in graph.nodes:
        if node.kind is Kind.PROCESS:
            nodes.append(_coloured(node, processes[node.id]))
        elif node.kind is Kind.FEED:
            events = _feed_instances(ledger, node.label, recent)
            nodes.append(_coloured(node, events) if events else _from_producers(node, graph.edges, processes,
                                                                                transfers))
        elif node.kind is Kind.DATASOURCE:
            found = [item for edge, items in transfers.items() if node.id in (edge.source, edge.target)
                     for item in items]
            nodes.append(_coloured(node, sorted(found, key=lambda item: item.time, reverse=True)[:recent]))
        else:
            nodes.append(node)
    return replace(graph, nodes=tuple(nodes), ledger=True)


def _coloured(node: Node, recent: list[Instance]) -> Node:
    """`recent` is newest first; the node's status is the newest one's."""
    return replace(node, status=recent[0].status if recent else None, recent=tuple(recent))


def _from_producers(node: Node, edges: tuple[Edge, ...], processes: dict[str, list[Instance]],
                    transfers: dict[Edge, list[Instance]]) -> Node:
    """A feed without events: the newest instance status of its producers and its import (its recent list stays
    empty)."""
    produced = [newest for edge in edges if edge.kind is EdgeKind.PRODUCER and edge.target == node.id
                for newest in processes.get(edge.source, [])[:1]]
    produced += [newest for edge, items in transfers.items() if edge.kind is EdgeKind.IMPORT and edge.target == node.id
                 for newest in items[:1]]
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


def _transfer_instances(ledger: Ledger, edge: Edge, recent: int) -> list[Instance]:
    """The newest `recent` import (or export) records of the edge's feed, newest first, each saying which."""
    from toolkit.core.ledger.database_transfers import ExportBook, ImportBook
    from toolkit.core.ledger.record_files import RecordFile

    if edge.kind is EdgeKind.IMPORT:
        feed = edge.target.split("/", 1)[1]
        records: InstanceRecords[ImportRecord] | InstanceRecords[ExportRecord] = \
            ImportBook(ledger.fs, ledger.layout, feed).instances
    else:
        feed = edge.source.split("/", 1)[1]
        records = ExportBook(ledger.fs, ledger.layout, feed).instances
    if not ledger.fs.exists(records.folder):
        return []
    names = sorted((status.name for status in ledger.fs.list(records.folder)
                    if not status.is_dir and _RECORD_FILE.match(status.name)), reverse=True)
    found = []
    for name in names:
        record = RecordFile(ledger.fs, f"{records.folder}/{name}", records.kind).read()
        if record is not None:
            found.append(Instance(record.time, record.status.value, record.run_id, f"{edge.kind.value} {feed}"))
        if len(found) == recent:
            break
    return found
