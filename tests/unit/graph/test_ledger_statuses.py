"""Statuses from a real local ledger written with its API: a process takes its newest instance's status, a
feed its newest instance's last event, or its producer's status when it has no events; recent instances are
the newest ten, newest first."""

from __future__ import annotations

from pathlib import Path

from tests.unit.graph.ledger_history import ROLLUP, SUMMARY, write_history
from tests.unit.retention.retention_repo import make_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.views.graph.build import build_graph
from toolkit.views.graph.ledger_statuses import with_statuses
from toolkit.views.graph.model import Instance


def test_statuses_and_recent_instances_of_the_primary_cluster(tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    ledger = write_history(conf)
    graph = with_statuses(build_graph(ConfigRepo.load(conf), "primary"), ledger)
    nodes = {node.id: node for node in graph.nodes}
    assert graph.ledger

    summary = nodes[f"process/{SUMMARY}"]
    assert summary.status == "FAILED"
    assert [item.time for item in summary.recent] == [f"2026-11-21T{hour:02d}:00Z" for hour in range(12, 2, -1)]
    assert summary.recent[0] == Instance("2026-11-21T12:00Z", "FAILED", f"run-{SUMMARY}-21-12")
    assert {item.status for item in summary.recent[1:]} == {"SUCCEEDED"}
    assert nodes[f"process/{ROLLUP}"].status == "WAITING"
    assert [item.status for item in nodes[f"process/{ROLLUP}"].recent] == ["WAITING", "SUCCEEDED"]

    clicks = nodes["feed/clicks"]
    assert clicks.status == "published"
    assert [(item.time, item.status, item.run_id) for item in clicks.recent] == [
        ("2026-11-21T11:00Z", "published", "publish-11"), ("2026-11-21T10:00Z", "published", "publish-10"),
        ("2026-11-21T09:00Z", "published", "publish-9"), ("2026-11-21T08:00Z", "evicted", "retention-1")]
    assert nodes["feed/clicks-hourly-summary"].status == "replaced"
    # no events: its producer's newest status, and no recent instances of its own
    assert (nodes["feed/clicks-daily"].status, nodes["feed/clicks-daily"].recent) == ("WAITING", ())
    # neither events nor a producer with records
    assert (nodes["feed/page-views"].status, nodes["feed/top-pages"].status) == (None, None)
    assert nodes["cluster/primary"].status is None


def test_recent_instances_are_cut_at_the_given_number(tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    graph = with_statuses(build_graph(ConfigRepo.load(conf), "primary"), write_history(conf), recent=2)
    summary = next(node for node in graph.nodes if node.label == SUMMARY)
    assert [item.time for item in summary.recent] == ["2026-11-21T12:00Z", "2026-11-21T11:00Z"]
