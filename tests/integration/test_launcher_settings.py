"""Falcon's `queueName` and `jobPriority` reach the Spark session an action builds, as spark.yarn.queue and
spark.yarn.priority, and win over the cluster's spark.yarn.queue and over a --conf of the spark-submit call.

Real: the entrypoints run through the real spark-submit, and the settings are read from the Spark event log
the action's own SparkContext writes (its SparkListenerEnvironmentUpdate lists every Spark property). The
master is local, not YARN: the test shows the settings on the session, not a YARN queue taking the application.
The shared test session cannot show them: getOrCreate on a running SparkContext ignores non-SQL settings."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.integration.spark_submit import environment, spark_submit_command
from tests.unit.retention.retention_repo import make_repo

LAUNCHER = "properties:\n  queueName: root.etl.hourly\n  jobPriority: VERY_HIGH\n"


def _with_cluster_queue(repo: Path) -> None:
    cluster = repo / "clusters" / "primary.yaml"
    text = cluster.read_text()
    assert text.count("properties:\n") == 1
    cluster.write_text(text.replace("properties:\n", "properties:\n  spark.yarn.queue: cluster-queue\n"))


def _submit_with_event_log(tmp_path: Path, entrypoint: str, *args: str, exit_code: int = 0) -> dict[str, str]:
    """Run the entrypoint with `--conf spark.yarn.queue=command-line-queue` and an event log; the Spark
    properties of the session it built."""
    events = tmp_path / "events"
    events.mkdir()
    command = spark_submit_command(entrypoint, *args)
    command[1:1] = ["--conf", "spark.yarn.queue=command-line-queue", "--conf", "spark.eventLog.enabled=true",
                    "--conf", f"spark.eventLog.dir={events.as_uri()}", "--conf", "spark.eventLog.compress=false",
                    "--conf", "spark.eventLog.rolling.enabled=false"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=environment(), timeout=300)
    assert result.returncode == exit_code, result.stdout[-3000:]
    (log,) = events.iterdir()
    updates = [json.loads(line) for line in log.read_text().splitlines()
               if '"Event":"SparkListenerEnvironmentUpdate"' in line]
    return dict(updates[0]["Spark Properties"])


@pytest.mark.jvm
def test_process_session_runs_in_the_process_queue_and_priority(tmp_path: Path) -> None:
    """(A file feed's retention, which this test used, starts no Spark session any more: issue 36.)"""
    repo, _ = make_repo(tmp_path)
    _with_cluster_queue(repo)
    process = repo / "processes" / "hourly-clicks-summary.yaml"
    process.write_text(process.read_text() + LAUNCHER)
    # No input instance: the run does not wait (exit 3), in the session it built.
    properties = _submit_with_event_log(tmp_path, "process", "--repo", str(repo), "--process",
                                        "hourly-clicks-summary", "--cluster", "primary", "--time",
                                        "2026-03-31T22:00Z", "--no-wait", exit_code=3)
    assert (properties["spark.yarn.queue"], properties["spark.yarn.priority"]) == ("root.etl.hourly", "5")
    assert properties["spark.app.name"] == "toolkit-process-hourly-clicks-summary-primary"


@pytest.mark.jvm
def test_replication_session_runs_in_the_feeds_queue_on_the_target(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text() + LAUNCHER.replace("VERY_HIGH", "'9'"))
    # No source instance yet: the run waits (exit 3), in the session it built on the target.
    properties = _submit_with_event_log(tmp_path, "replication", "--repo", str(repo), "--feed", "clicks",
                                        "--target", "backup", "--time", "2026-01-01T05:00Z", "--now",
                                        "2026-01-01T05:00Z", exit_code=3)
    assert (properties["spark.yarn.queue"], properties["spark.yarn.priority"]) == ("root.etl.hourly", "9")
    assert properties["spark.app.name"] == "toolkit-replication-clicks-backup"


@pytest.mark.jvm
def test_late_check_session_runs_in_the_process_queue_and_priority(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    _with_cluster_queue(repo)
    process = repo / "processes" / "hourly-clicks-summary.yaml"
    process.write_text(process.read_text() + LAUNCHER.replace("VERY_HIGH", "LOW"))
    properties = _submit_with_event_log(tmp_path, "late_check", "--repo", str(repo), "--process",
                                        "hourly-clicks-summary", "--cluster", "primary", "--time",
                                        "2026-11-21T12:00Z")
    assert (properties["spark.yarn.queue"], properties["spark.yarn.priority"]) == ("root.etl.hourly", "2")


@pytest.mark.jvm
def test_without_the_properties_the_cluster_queue_stays(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    _with_cluster_queue(repo)
    properties = _submit_with_event_log(tmp_path, "process", "--repo", str(repo), "--process",
                                        "hourly-clicks-summary", "--cluster", "primary", "--time",
                                        "2026-03-31T22:00Z", "--no-wait", exit_code=3)
    assert properties["spark.yarn.queue"] == "cluster-queue"
    assert "spark.yarn.priority" not in properties


@pytest.mark.jvm
def test_a_bad_priority_exits_2_before_spark_starts(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text() + "properties:\n  jobPriority: URGENT\n")
    command = spark_submit_command("retention", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                                   "--time", "2026-03-31T22:00Z")
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=environment(), timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output[-3000:]
    assert "retention: The property 'jobPriority' of feed 'clicks' is 'URGENT': give one of Hadoop's" in output
    assert "Traceback" not in output and "SparkContext" not in output
