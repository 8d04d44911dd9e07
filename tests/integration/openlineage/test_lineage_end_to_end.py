"""Lineage through the real spark-submit and the real `toolkit` command, as a scheduler and an operator use
them: OPENLINEAGE_URL alone turns it on; Airflow's parent run passed as Spark properties becomes the parent
facet; a backend that never answers costs the run at most its 5 s, fails nothing, and leaves the events counted
in `lineage_unsent`, which `toolkit lineage resend` then delivers once (that run in process, on the shared session:
tests/integration/in_process.py; nothing of it needs a JVM of its own)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import make_repo, utc, write_clicks
from tests.integration.spark_submit import SPARK_SUBMIT, environment
from tests.lineage_receiver import lineage_receiver
from tests.openlineage_schema import validate_event

T = utc(2026, 11, 21, 10)
PROJECT = Path(__file__).resolve().parents[3]
AIRFLOW_TASK, AIRFLOW_DAG = "01890d7e-6a3e-7c2b-9b8f-3c1d2e4f5a6b", "01890d7e-6a3e-7c2b-9b8f-aaaaaaaaaaaa"


def run_process(repo: Path, time_: str, url: str, cwd: Path, *confs: str) -> subprocess.CompletedProcess[str]:
    command = [str(SPARK_SUBMIT), "--master", "local[1]", "--conf", "spark.ui.enabled=false"]
    for conf in confs:
        command += ["--conf", conf]
    command += [str(PROJECT / "entrypoints" / "process.py"), "--repo", str(repo), "--process",
                "hourly-clicks-summary", "--cluster", "primary", "--time", time_]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**environment(), "OPENLINEAGE_URL": url})


def status_of(result: subprocess.CompletedProcess[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.jvm
def test_openlineage_url_alone_turns_lineage_on_and_airflows_parent_is_kept(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    with lineage_receiver() as receiver:
        result = run_process(repo, "2026-11-21T10:00Z", receiver.url, tmp_path,
                             "spark.openlineage.parentJobNamespace=airflow",
                             "spark.openlineage.parentJobName=clicks_dag.summary",
                             f"spark.openlineage.parentRunId={AIRFLOW_TASK}",
                             "spark.openlineage.rootParentJobNamespace=airflow",
                             "spark.openlineage.rootParentJobName=clicks_dag",
                             f"spark.openlineage.rootParentRunId={AIRFLOW_DAG}")
    assert result.returncode == 0, result.stdout[-3000:]
    status = status_of(result)
    assert (status["status"], status["lineage_unsent"]) == ("SUCCEEDED", 0)
    assert [e["eventType"] for e in receiver.events] == ["START", "COMPLETE"]
    for event in receiver.events:
        validate_event(event)
        parent = event["run"]["facets"]["parent"]
        assert (parent["job"]["name"], parent["run"]["runId"]) == ("clicks_dag.summary", AIRFLOW_TASK)
        assert (parent["root"]["job"]["name"], parent["root"]["run"]["runId"]) == ("clicks_dag", AIRFLOW_DAG)
        assert event["run"]["facets"]["feedToolkit_run"]["runId"] == status["run_id"]


def test_a_backend_that_never_answers_costs_five_seconds_and_resend_delivers_later(
        run_entrypoint: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    with lineage_receiver() as silent:
        silent.hang_seconds = 60
        began = time.monotonic()
        result = run_entrypoint("process", "--repo", str(repo), "--process", "hourly-clicks-summary", "--cluster",
                                "primary", "--time", "2026-11-21T10:00Z", cwd=tmp_path,
                                env={"OPENLINEAGE_URL": silent.url})
        took = time.monotonic() - began
    assert result.returncode == 0, result.stdout[-3000:]
    status = status_of(result)
    assert (status["status"], status["lineage_unsent"]) == ("SUCCEEDED", 2)
    # After the first silence nothing more is sent: only the client's own retries of the START reached it.
    assert {(e["eventType"], e["run"]["runId"]) for e in silent.requests} == \
        {("START", silent.requests[0]["run"]["runId"])}
    assert "lineage: events not sent (no answer within the 5 s given to lineage)" in result.stderr
    assert (root / "data/clicks-hourly-summary/2026/11/21/10/_SUCCESS").exists()
    assert took < 120  # the run was not held by the backend's 60 s (its own cost is measured in bench/)
    with lineage_receiver() as backend:
        first = _resend(repo, backend.url)
        again = _resend(repo, backend.url)
    assert first.returncode == 0 and "2 of 2 event(s) due, from 1 run(s)" in first.stdout, first.stdout + first.stderr
    assert again.returncode == 0 and "0 of 0 event(s) due, from 0 run(s)" in again.stdout
    assert [e["eventType"] for e in backend.events] == ["START", "COMPLETE"]
    assert backend.events[1]["run"]["facets"]["feedToolkit_run"]["runId"] == status["run_id"]
    for event in backend.events:
        validate_event(event)


def _resend(repo: Path, url: str) -> subprocess.CompletedProcess[str]:
    """The `toolkit` command in a process of its own, as an operator runs it."""
    return subprocess.run([sys.executable, "-m", "toolkit", "lineage", "resend", "--repo", str(repo), "--cluster",
                           "primary"], capture_output=True, text=True, timeout=120, cwd=repo,
                          env={**environment(), "OPENLINEAGE_URL": url, "PYTHONPATH": str(PROJECT)})


@pytest.mark.jvm
def test_a_file_feeds_retention_without_spark_keeps_airflows_parent(tmp_path: Path) -> None:
    """Retention of a file feed starts no SparkContext: the parent run passed as Spark properties is read from
    spark-submit's launcher all the same."""
    from tests.unit.retention.retention_repo import hourly_instances
    from tests.unit.retention.retention_repo import make_repo as retention_repo

    repo, root = retention_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 20), 4)
    with lineage_receiver() as receiver:
        result = subprocess.run(
            [str(SPARK_SUBMIT), "--master", "local[1]", "--conf", "spark.openlineage.parentJobNamespace=airflow",
             "--conf", "spark.openlineage.parentJobName=clicks_dag.retention", "--conf",
             f"spark.openlineage.parentRunId={AIRFLOW_TASK}", str(PROJECT / "entrypoints" / "retention.py"),
             "--repo", str(repo), "--feed", "clicks", "--cluster", "primary", "--time", "2026-03-31T22:00Z",
             "--verbose"], capture_output=True, text=True, cwd=tmp_path, timeout=300,
            env={**environment(), "OPENLINEAGE_URL": receiver.url})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    status = status_of(result)
    assert (status["status"], status["instances_evicted"], status["lineage_unsent"]) == ("SUCCEEDED", 2, 0)
    assert "SparkContext" not in result.stderr
    assert [e["eventType"] for e in receiver.events] == ["START", "COMPLETE"]
    for event in receiver.events:
        validate_event(event)
        parent = event["run"]["facets"]["parent"]
        assert (parent["job"]["name"], parent["run"]["runId"]) == ("clicks_dag.retention", AIRFLOW_TASK)
