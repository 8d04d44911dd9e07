"""`toolkit schedule --retention per-cluster` (issue 36): one retention call for every feed a cluster keeps, instead
of one per feed; `toolkit retain --all` when no feed needs Spark, the entrypoint otherwise."""

from __future__ import annotations

from pathlib import Path

from tests.unit.retention.retention_repo import make_repo
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.devtools.feeds_repo import CLUSTER, write_feeds_repo
from toolkit.orchestration.schedule.cadence import CLOCK, Cadence
from toolkit.orchestration.schedule.calls import Program, RetentionCalls, plan_calls


def retention_calls(repo: Path, cluster: str, mode: RetentionCalls) -> list[tuple[str, Program, tuple[str, ...],
                                                                                  Cadence]]:
    plan = plan_calls(ConfigRepo.load(repo), cluster, mode)
    return [(call.name, call.program, call.arguments, call.cadence) for call in plan.calls
            if call.action == "retention"]


def test_a_cluster_of_file_feeds_gets_one_toolkit_retain_all_call_every_hour(tmp_path: Path) -> None:
    names = write_feeds_repo(tmp_path / "conf", tmp_path / "lake", 4)
    assert len(retention_calls(tmp_path / "conf", CLUSTER, RetentionCalls.PER_FEED)) == 4
    assert retention_calls(tmp_path / "conf", CLUSTER, RetentionCalls.PER_CLUSTER) == [
        ("retention", Program.TOOLKIT, ("retain", "--cluster", CLUSTER, "--all"),
         Cadence(Frequency(TimeUnit.HOURS, 1), CLOCK))]
    plan = plan_calls(ConfigRepo.load(tmp_path / "conf"), CLUSTER, RetentionCalls.PER_CLUSTER)
    [call] = [call for call in plan.calls if call.action == "retention"]
    assert [asset.name for asset in call.inlet_assets] == [f"{name}@{CLUSTER}" for name in names]


def test_a_feed_retained_more_often_than_hourly_sets_the_clusters_cadence(tmp_path: Path) -> None:
    names = write_feeds_repo(tmp_path / "conf", tmp_path / "lake", 2)
    feed = tmp_path / "conf" / "feeds" / f"{names[1]}.yaml"
    feed.write_text(feed.read_text() + "properties:\n  retention.frequency: minutes(20)\n")
    [(_, _, _, cadence)] = retention_calls(tmp_path / "conf", CLUSTER, RetentionCalls.PER_CLUSTER)
    assert cadence == Cadence(Frequency(TimeUnit.MINUTES, 20), CLOCK)


def test_a_cluster_with_table_feeds_gets_the_entrypoint_with_all(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    assert retention_calls(repo, "primary", RetentionCalls.PER_CLUSTER) == [
        ("retention", Program.SPARK_SUBMIT, ("--cluster", "primary", "--all"),
         Cadence(Frequency(TimeUnit.HOURS, 1), CLOCK))]


def test_a_cluster_keeping_no_feed_gets_no_retention_call(tmp_path: Path) -> None:
    write_feeds_repo(tmp_path / "conf", tmp_path / "lake", 0)
    assert retention_calls(tmp_path / "conf", CLUSTER, RetentionCalls.PER_CLUSTER) == []
