"""The page's order is the graph's dependencies, upstream first; the header counts what needs a person."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.unit.retention.retention_repo import TEMPLATE
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.repo import ConfigRepo
from toolkit.views.graph.build import build_graph
from toolkit.views.graph.model import Edge, EdgeKind, Graph, Node
from toolkit.views.report.model import Grid, Header
from toolkit.views.report.order import dependency_order
from toolkit.views.report.states import State


def test_every_feed_and_process_comes_after_what_it_depends_on() -> None:
    graph = build_graph(ConfigRepo.load(TEMPLATE), "primary")
    order = dependency_order(graph)
    assert sorted(order) == sorted(node.id for node in graph.nodes if node.kind in (Kind.FEED, Kind.PROCESS))
    position = {node: index for index, node in enumerate(order)}
    dependencies = [(edge.source, edge.target) for edge in graph.edges
                    if edge.kind in (EdgeKind.PRODUCER, EdgeKind.CONSUMER)]
    assert dependencies and all(position[source] < position[target] for source, target in dependencies)
    assert position["feed/clicks"] < position["process/hourly-clicks-summary"] \
        < position["feed/clicks-hourly-summary"] < position["process/daily-clicks-rollup"]


def _node(id_: str) -> Node:
    kind, name = id_.split("/")
    return Node(id_, Kind(kind), name, f"{kind}s/{name}.yaml", "")


def test_a_cycle_is_placed_last_rather_than_lost() -> None:
    nodes = tuple(_node(id_) for id_ in ("feed/a", "process/p", "feed/b", "process/q"))
    edges = (Edge("feed/a", "process/p", EdgeKind.CONSUMER), Edge("process/q", "feed/b", EdgeKind.PRODUCER),
             Edge("feed/b", "process/q", EdgeKind.CONSUMER))
    assert dependency_order(Graph("t", nodes, edges)) == ["feed/a", "process/p", "feed/b", "process/q"]


def _at(hour: int) -> datetime:
    return datetime(2026, 11, 21, hour, tzinfo=timezone.utc)


def test_the_header_counts_failures_misses_holds_and_finds_the_oldest_waiting() -> None:
    process = Grid("process", "p", "hours(1)", (), (), tuple(_at(hour) for hour in range(1, 7)), (
        State.FAILED, State.QUALITY_BLOCKED, State.SUSPENDED, State.WAITING, State.KILLED, State.TIMED_OUT),
        sla={1: "missed"})
    feed = Grid("feed", "f", "hours(1)", (), (), (_at(0), _at(3)), (State.PUBLISHED, State.WAITING), sla={0: "late"},
                suspended="since now")
    header = Header.of([process, feed])
    assert [(item.entity, item.time.hour) for item in header.failures] == [
        ("process/p", 1), ("process/p", 2), ("process/p", 5), ("process/p", 6)]
    assert [(item.entity, item.time.hour) for item in header.sla_misses] == [("process/p", 2), ("feed/f", 0)]
    assert [item.time.hour for item in header.held] == [3]
    assert header.suspended == ("feed/f",)
    assert header.oldest_waiting is not None and \
        (header.oldest_waiting.entity, header.oldest_waiting.time.hour) == ("feed/f", 3)
    shown = header.to_json(2)
    assert (shown["failures"], shown["sla_misses"], shown["held"]) == (4, 2, 1)
    assert [item["time"] for item in shown["failed"]] == ["2026-11-21T06:00Z", "2026-11-21T05:00Z"]  # type: ignore
    assert Header.of([]).oldest_waiting is None
