"""process.py through the real spark-submit, as a scheduler calls it: the template's processes end to end (the
hourly one's 24 instances in process), a run killed with -9 in the middle of its workflow (nothing published; the
next call waits for the lease, takes the lock over, records the killed attempt and completes), and two calls for one
instance at once (exactly one runs); in process, a Hive workflow at a path of the cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.process_runner.process_repo import make_repo, utc, write_clicks, write_process
from tests.integration.spark_submit import environment, script_command, spark_submit, spark_submit_command

T = utc(2026, 11, 21, 10)
RECORDS = "feed-toolkit/working/ledger/processes"


def _status(result: subprocess.CompletedProcess[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.jvm
def test_template_processes_through_spark_submit(spark, metastore_factory, run_entrypoint, tmp_path: Path) -> None:
    thrift_metastore = metastore_factory("process-runner")  # its own: the template's `web` database is created
    repo, root = make_repo(tmp_path)
    cluster = repo / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace("thrift://127.0.0.1:9083", thrift_metastore.uri))
    tables = subprocess.run(script_command(repo / "demo/create_tables.py", "--repo", str(repo), "--cluster",
                                           "primary"), capture_output=True, text=True, cwd=tmp_path,
                            env=environment(), timeout=300)
    assert tables.returncode == 0, tables.stdout[-3000:] + tables.stderr[-3000:]
    write_clicks(root, utc(2026, 11, 19, 22), 26)
    # The day's 24 hours of file feeds in process (tests/integration/in_process.py); the daily rollup, whose Hive
    # partition goes to the cluster's own metastore, and the Spark application through spark-submit.
    hourly = run_entrypoint("process", "--repo", str(repo), "--process", "hourly-clicks-summary", "--cluster",
                            "primary", "--from", "2026-11-20T00:00Z", "--to", "2026-11-20T23:00Z", "--now",
                            "2026-11-21T00:05Z", cwd=tmp_path)
    assert hourly.returncode == 0, hourly.stdout[-3000:]
    status = _status(hourly)
    assert [i["status"] for i in status["instances"]] == ["SUCCEEDED"] * 24
    daily = spark_submit("process", "--repo", str(repo), "--process", "daily-clicks-rollup", "--cluster", "primary",
                         "--time", "2026-11-21T00:00Z", "--status-file", str(tmp_path / "daily.json"), cwd=tmp_path)
    assert daily.returncode == 0, daily.stdout[-3000:]
    written = json.loads((tmp_path / "daily.json").read_text())
    partition = f"file://{root}/warehouse/web.db/clicks_daily/ds=2026-11-20"
    assert (written["status"], written["outputs"]) == \
        ("SUCCEEDED", [f"file://{root}/data/clicks-daily/2026/11/20", partition])
    client = thrift_metastore.client(spark)
    try:
        assert client.partition_names("web", "clicks_daily") == ["ds=2026-11-20"]
        located = str(client.client.getPartition("web", "clicks_daily", client._list(["2026-11-20"])).getSd()
                      .getLocation())
        assert not client.client.tableExists("web", "clicks_daily__toolkit_20261121t0000z")
    finally:
        client.close()
    assert located.replace("file:///", "file:/").replace("file:/", "file:///") == partition
    # Each page gets 2 + h % 3 clicks in hour h: 24 hours give 8 x (2 + 3 + 4) = 72 per page.
    expected = spark.createDataFrame([(page, 72, 3, 9, 24) for page in ("/", "/cart", "/help")],
                                     "page string, clicks long, peak_hourly_users long, peak_clicks_3h long, "
                                     "hours_with_clicks long")
    assert_df_equality(spark.read.json(str(root / "data/clicks-daily/2026/11/20")), expected,
                       ignore_row_order=True, ignore_column_order=True)
    assert_df_equality(spark.read.parquet(partition), expected, ignore_row_order=True, ignore_nullable=True)
    again = run_entrypoint("process", "--repo", str(repo), "--process", "daily-clicks-rollup", "--cluster",
                           "primary", "--time", "2026-11-21T00:00Z", cwd=tmp_path)  # the skip needs no JVM of its own
    assert (again.returncode, _status(again)["status"]) == (4, "SKIPPED")
    # The template's Falcon-style Spark application (engine spark) ranks the day's pages: the entrypoint in process,
    # the application in the spark-submit the engine starts (the entrypoint's own spark-submit is the daily's above).
    top = run_entrypoint("process", "--repo", str(repo), "--process", "top-pages", "--cluster", "primary", "--time",
                         "2026-11-21T00:00Z", cwd=tmp_path)
    assert top.returncode == 0, top.stdout[-3000:]
    assert _status(top)["outputs"] == [f"file://{root}/data/top-pages/2026/11/20"]
    assert_df_equality(spark.read.json(str(root / "data/top-pages/2026/11/20")),
                       spark.createDataFrame([("/", 72), ("/cart", 72)], "page string, clicks long"),
                       ignore_row_order=True, ignore_column_order=True)


SLOW = '''
import os, time

def run(spark, ctx):
    spark.createDataFrame([(ctx.run_id,)], "run string").write.json(ctx.outputs["summary"])
    deadline = time.monotonic() + 180
    while os.path.exists(os.environ.get("HOLD_FILE", "")) and time.monotonic() < deadline:
        time.sleep(0.2)  # held by the test until it has seen what it waits for
'''


def _slow_process(repo: Path) -> str:
    (repo / "workflows" / "slow.py").write_text(SLOW)
    return write_process(repo, "slow", {"path: workflows/hourly_clicks_summary.py": "path: workflows/slow.py"})


def _start(repo: Path, name: str, tmp_path: Path, hold: Path, *extra: str) -> subprocess.Popen[str]:
    command = spark_submit_command("process", "--repo", str(repo), "--process", name, "--cluster", "primary",
                                   "--time", "2026-11-21T10:00Z", *extra)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                            env={**environment(), "HOLD_FILE": str(hold)}, start_new_session=True)


def _wait_for(condition, seconds: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


@pytest.mark.jvm
def test_a_killed_run_is_taken_over_once_its_lease_expired(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _slow_process(repo)
    hold = tmp_path / "hold"
    hold.write_text("")
    first = _start(repo, name, tmp_path, hold, "--lease", "4")
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    staging = lambda: [p for p in output.parent.glob(".10.toolkit-*")] if output.parent.exists() else []  # noqa: E731
    _wait_for(lambda: any((s / "_SUCCESS").exists() for s in staging()), 120)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert not output.exists()  # nothing published
    hold.unlink()
    blocked = spark_submit("process", "--repo", str(repo), "--process", name, "--cluster", "primary", "--time",
                           "2026-11-21T10:00Z", "--lease", "4", cwd=tmp_path)
    records = root / RECORDS / name / "20261121T1000Z"
    killed_run = json.loads((records / "attempt-001.json").read_text())["run_id"]
    if blocked.returncode == 5:  # the lease was still live: the killed run still held the lock
        assert "is being run by run " + killed_run in blocked.stderr
        time.sleep(4)
        blocked = spark_submit("process", "--repo", str(repo), "--process", name, "--cluster", "primary",
                               "--time", "2026-11-21T10:00Z", "--lease", "4", cwd=tmp_path)
    assert blocked.returncode == 0, blocked.stdout[-3000:]
    attempts = [json.loads((records / f"attempt-00{k}.json").read_text()) for k in (1, 2)]
    assert [(a["status"], a["run_id"]) for a in attempts] == [("KILLED", killed_run),
                                                               ("SUCCEEDED", _status(blocked)["run_id"])]
    assert [p.name for p in output.parent.iterdir()] == ["10"]  # the killed attempt's staging was cleared
    assert json.loads((output / next(p.name for p in output.iterdir() if p.name.startswith("part"))).read_text()
                      .splitlines()[0])["run"] == _status(blocked)["run_id"]


@pytest.mark.jvm
def test_two_calls_for_one_instance_at_once_run_it_exactly_once(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _slow_process(repo)
    hold = tmp_path / "hold"
    hold.write_text("")  # the winner works until the loser has answered
    calls = [_start(repo, name, tmp_path, hold) for _ in range(2)]
    _wait_for(lambda: any(call.poll() is not None for call in calls), 240)
    loser = next(call for call in calls if call.poll() is not None)
    hold.unlink()
    winner = next(call for call in calls if call is not loser)
    assert winner.wait(timeout=240) == 0, winner.stdout.read()  # type: ignore[union-attr]
    assert loser.returncode == 5, loser.stdout.read()  # type: ignore[union-attr]
    records = root / RECORDS / name / "20261121T1000Z"
    # One attempt, and its stderr beside it (toolkit logs).
    assert sorted(p.name for p in records.glob("attempt-*")) == ["attempt-001.json", "attempt-001.stderr"]


HIVE_WORDCOUNT = """\
-- Clicks per page of the window, as Falcon's example Hive workflow counted words.
INSERT OVERWRITE DIRECTORY '${summary}' USING json
SELECT page, COUNT(*) AS clicks FROM json.`${clicks}` GROUP BY page;
"""


def test_a_hive_workflow_at_an_absolute_cluster_path_runs(spark, run_entrypoint, tmp_path: Path) -> None:
    """Falcon's workflows live on the cluster (`/app/hive/wordcount.hql`): the runner reads it under the
    cluster's write endpoint, not from the config repo. (No `registry`: Spark's own catalog serves the Hive
    session, as nothing here is a table.)"""
    repo, root = make_repo(tmp_path)
    cluster = repo / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace('  registry:\n    endpoint: thrift://127.0.0.1:9083\n'
                                                   '    version: "2.3"\n', ""))
    assert "registry" not in cluster.read_text()
    write_clicks(root, T - timedelta(hours=2), 3)
    (root / "app" / "hive").mkdir(parents=True)
    (root / "app" / "hive" / "clicks.hql").write_text(HIVE_WORDCOUNT)
    name = write_process(repo, "hive-clicks", {
        "engine: pyspark\n  path: workflows/hourly_clicks_summary.py": "engine: hive\n  path: /app/hive/clicks.hql"})
    assert not (repo / "app").exists()
    result = run_entrypoint("process", "--repo", str(repo), "--process", name, "--cluster", "primary", "--time",
                            "2026-11-21T10:00Z", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert _status(result)["status"] == "SUCCEEDED"
    assert f"running file://{root}/app/hive/clicks.hql (hive)" in result.stderr
    # Hours 08, 09 and 10 give 2 + 2, 2 + 0 and 2 + 1 clicks per page (2 + hour % 3).
    expected = spark.createDataFrame([(page, 9) for page in ("/", "/cart", "/help")], "page string, clicks long")
    assert_df_equality(spark.read.json(str(root / "data/clicks-hourly-summary/2026/11/21/10")), expected,
                       ignore_row_order=True, ignore_column_order=True)
