"""A Falcon `spark` engine process end to end through `spark-submit entrypoints/process.py`: its application, a
plain pyspark script on the cluster's file system, runs with its own spark-submit and receives Falcon's arguments
(the input paths joined by commas, then the output's staging path, then spark-attributes' args); its output is
published and the instance recorded SUCCEEDED. An application that exits 1 is a FAILED attempt whose error names
it, its exit code and its last words, whose output is kept beside its attempt's record; nothing is published."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.process_runner.process_repo import (
    TestClock,
    make_repo,
    new_runner,
    utc,
    write_clicks,
    write_process,
)
from tests.integration.spark_submit import spark_submit
from toolkit.core.instances.output_targets import staging_key
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.spark_submission import SparkSubmission, spark_submit_path

T = utc(2026, 11, 21, 10)
APPLICATION = '''\
"""Counts clicks and distinct users per page: argv[1] the input paths (comma-separated), argv[2] the output."""
import json
import sys

from pyspark.sql import SparkSession, functions as F

with open(sys.argv[3], "w") as received:
    json.dump(sys.argv[1:], received)
if "--fail" in sys.argv:
    sys.exit("no clicks for the page '/checkout'")
spark = SparkSession.builder.getOrCreate()
clicks = spark.read.json(sys.argv[1].split(","))
clicks.groupBy("page").agg(F.count("*").alias("clicks"), F.countDistinct("user").alias("users")) \\
    .coalesce(1).write.json(sys.argv[2])
'''


def _spark_process(repo: Path, root: Path, name: str, *args: str, master: str = "  master: local[1]\n",
                   application: str | None = APPLICATION) -> str:
    if application is not None:
        (root / "apps/clicks-count").mkdir(parents=True)
        (root / "apps/clicks-count/count.py").write_text(application)
    attributes = ("spark-attributes:\n" + master + "  name: Clicks count\n  jar: /apps/clicks-count/count.py\n"
                  "  spark-opts: --conf spark.ui.enabled=false\n  args: " + json.dumps(list(args)) + "\n")
    workflow = "  engine: pyspark\n  path: workflows/hourly_clicks_summary.py\n"
    return write_process(repo, name, {workflow: "  engine: spark\n  path: /apps/clicks-count\n",
                                      "retry:\n": attributes + "retry:\n", "attempts: 3": "attempts: 1"})


def _run(repo: Path, name: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict]:  # type: ignore[type-arg]
    result = spark_submit("process", "--repo", str(repo), "--process", name, "--cluster", "primary", "--time",
                          "2026-11-21T10:00Z", cwd=tmp_path)
    return result, json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.jvm
def test_a_spark_application_gets_falcons_arguments_and_its_output_is_published(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    folders = write_clicks(root, T - timedelta(hours=2), 3)
    received = tmp_path / "argv.json"
    name = _spark_process(repo, root, "clicks-count", str(received), "--day=2026-11-21")
    result, status = _run(repo, name, tmp_path)
    assert (result.returncode, status["status"]) == (0, "SUCCEEDED"), result.stdout[-3000:] + result.stderr[-3000:]
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    staging = f"file://{output.parent}/.10.toolkit-{staging_key(name, T)}-{status['run_id']}-1"
    assert json.loads(received.read_text()) == [",".join(f"file://{folder}" for folder in folders), staging,
                                                str(received), "--day=2026-11-21"]
    assert status["outputs"] == [f"file://{output}"]
    # Each page gets 2 + h % 3 clicks in hour h from users u0.. u2: hours 8, 9 and 10 give 4 + 2 + 3.
    expected = spark.createDataFrame([(page, 9, 3) for page in ("/", "/cart", "/help")],
                                     "page string, clicks long, users long")
    assert_df_equality(spark.read.json(str(output)), expected, ignore_row_order=True, ignore_column_order=True)
    instance = json.loads(Path(status["record"].removeprefix("file://")).read_text())
    assert (instance["status"], instance["attempts"]) == ("SUCCEEDED", 1)


@pytest.mark.jvm
def test_a_failing_application_is_a_failed_attempt_and_nothing_is_published(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _spark_process(repo, root, "clicks-count", str(tmp_path / "argv.json"), "--fail")
    result, status = _run(repo, name, tmp_path)
    reason = "The Spark application /apps/clicks-count/count.py exited with code 1: no clicks for the page '/checkout'"
    assert (result.returncode, status["status"]) == (1, "FAILED"), result.stdout[-3000:]
    assert f"process: {reason}." in result.stderr
    [line] = result.stdout.splitlines()  # stdout holds the status line alone (issue 34: the error was there too)
    assert json.loads(line)["status"] == "FAILED"
    output = root / "data/clicks-hourly-summary/2026/11/21"
    assert not output.exists() or list(output.iterdir()) == []
    records = root / "feed-toolkit/working/ledger/processes" / name / "20261121T1000Z"
    attempt = json.loads((records / "attempt-001.json").read_text())
    assert (attempt["status"], attempt["error"]) == ("FAILED", reason)
    # The attempt's stderr, kept beside its record (issue 37, `toolkit logs`): the runner's sentence, then the
    # child spark-submit's whole output, its last words included.
    log = (records / "attempt-001.stderr").read_text()
    assert log.startswith(f"process: {name} 2026-11-21T10:00Z attempt 1: running ")
    assert "no clicks for the page '/checkout'\n" in log
    assert f"process: attempt 1 failed: {reason}" in log


def test_a_missing_application_is_a_usage_error_before_anything(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    name = _spark_process(repo, root, "lost", application=None)
    with pytest.raises(UsageError) as raised:
        new_runner(spark, repo, name, TestClock(T))
    assert str(raised.value) == (
        f"The spark-attributes.jar of process 'lost' names file://{root}/apps/clicks-count/count.py, which does not "
        "exist on cluster 'primary': put the file there or fix spark-attributes.jar.")
    assert not (root / "feed-toolkit").exists()  # no lock, no record


def test_without_a_master_the_application_runs_on_the_entrypoints_own(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    name = _spark_process(repo, root, "own-master", master="")
    submission = new_runner(spark, repo, name, TestClock(T)).workflow
    assert isinstance(submission, SparkSubmission)
    assert submission.command[:3] == (spark_submit_path(), "--master", spark.sparkContext.master)
    assert submission.command[-1] == f"file://{root}/apps/clicks-count/count.py"
