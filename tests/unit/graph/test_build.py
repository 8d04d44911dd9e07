"""The graph model of the template repo: its nodes, the producer, consumer, replication, import and export
edges, the feed marked for having consumers and no producer, and the part of it on one cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.views.graph.build import build_graph
from toolkit.views.graph.model import EdgeKind

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"


def edges(graph, kind: EdgeKind) -> set[tuple[str, str]]:
    return {(edge.source, edge.target) for edge in graph.edges if edge.kind is kind}


def test_the_template_repo_as_a_graph() -> None:
    graph = build_graph(ConfigRepo.load(TEMPLATE))
    assert {node.id for node in graph.nodes if node.kind is Kind.CLUSTER} == {"cluster/primary", "cluster/backup"}
    assert {node.label for node in graph.nodes if node.kind is Kind.PROCESS} == {
        "hourly-clicks-summary", "daily-clicks-rollup", "top-pages", "hourly-page-view-counts"}
    assert len([node for node in graph.nodes if node.kind is Kind.FEED]) == 9
    assert [node.id for node in graph.nodes if node.kind is Kind.DATASOURCE] == ["datasource/shop-db"]
    assert edges(graph, EdgeKind.IMPORT) == {("datasource/shop-db", "feed/shop-orders")}
    assert edges(graph, EdgeKind.EXPORT) == {("feed/top-pages", "datasource/shop-db")}
    assert edges(graph, EdgeKind.PRODUCER) == {
        ("process/hourly-clicks-summary", "feed/clicks-hourly-summary"),
        ("process/daily-clicks-rollup", "feed/clicks-daily"),
        ("process/daily-clicks-rollup", "feed/clicks-daily-table"),
        ("process/top-pages", "feed/top-pages"),
        ("process/hourly-page-view-counts", "feed/page-view-counts")}
    assert edges(graph, EdgeKind.CONSUMER) == {
        ("feed/clicks", "process/hourly-clicks-summary"),
        ("feed/clicks-hourly-summary", "process/daily-clicks-rollup"),
        ("feed/clicks-daily", "process/top-pages"),
        ("feed/page-views", "process/hourly-page-view-counts")}
    [replication] = [edge for edge in graph.edges if edge.kind is EdgeKind.REPLICATION]
    assert (replication.source, replication.target, replication.feeds) == (
        "cluster/primary", "cluster/backup", ("clicks", "visits"))
    assert replication.label == "clicks, visits"
    # clicks is read and written by nothing in the repo; page-views is read too, but ingest writes it
    assert [node.id for node in graph.nodes if node.no_producer] == ["feed/clicks"]
    assert graph.title == "config_repo_template" and graph.cluster is None and not graph.ledger
    summary = next(node for node in graph.nodes if node.id == "process/hourly-clicks-summary")
    assert summary.file.endswith("processes/hourly-clicks-summary.yaml")
    assert "name: hourly-clicks-summary" in summary.definition and "late-process:" in summary.definition


def test_on_one_cluster_the_graph_keeps_what_is_there_and_the_clusters_it_replicates_with() -> None:
    graph = build_graph(ConfigRepo.load(TEMPLATE), "backup")
    assert sorted(node.id for node in graph.nodes) == ["cluster/backup", "cluster/primary", "feed/clicks",
                                                       "feed/visits"]
    assert [(edge.source, edge.target, edge.kind) for edge in graph.edges] == [
        ("cluster/primary", "cluster/backup", EdgeKind.REPLICATION)]
    assert graph.cluster == "backup"


def test_a_replication_edge_of_many_feeds_names_the_first_ones_and_a_count() -> None:
    from toolkit.views.graph.model import Edge

    edge = Edge("cluster/a", "cluster/b", EdgeKind.REPLICATION, ("one", "two", "three", "four"))
    assert edge.label == "one, two and 2 more"
    assert Edge("feed/a", "process/b", EdgeKind.CONSUMER).label == ""


def test_an_unknown_cluster_is_named() -> None:
    with pytest.raises(UsageError, match=r"Unknown cluster 'mars' in repo .*: known clusters are backup, primary"):
        build_graph(ConfigRepo.load(TEMPLATE), "mars")
