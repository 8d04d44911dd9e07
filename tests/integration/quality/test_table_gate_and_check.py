"""A suite on a table feed, checked on the partition the workflow staged, and `quality_check.py` on published
instances: in-process against the test SparkSession for its outcomes and exit codes, and once through the real
spark-submit."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.integration.process_runner.test_runner import _clicks_daily_table, _hourly_summaries
from tests.integration.spark_submit import spark_submit
from tests.lineage_receiver import lineage_receiver
from toolkit.actions.quality_check.quality_check_entry import main as quality_check
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo

DAY = utc(2026, 11, 20)
T = utc(2026, 11, 21, 10)
RECORDS = "feed-toolkit/working/ledger/processes/daily-clicks-rollup/20261121T0000Z"

PASSING = [
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "page"}},
    {"type": "expect_column_values_to_be_between", "kwargs": {"column": "clicks", "min_value": 0}},
    {"type": "expect_column_values_to_be_in_set", "kwargs": {"column": "ds", "value_set": ["2026-11-20"]}},
]
# An hour of the day without clicks is a hole in the tracker's data, not a quiet hour.
EVERY_HOUR = {"type": "expect_column_values_to_be_between", "kwargs": {"column": "hours_with_clicks",
                                                                        "min_value": 24}}


def _suite(repo: Path, name: str, expectations: list[dict]) -> str:  # type: ignore[type-arg]
    path = f"quality/{name}.json"
    (repo / path).write_text(json.dumps({"name": name, "expectations": expectations}))
    return path


def _declare(repo: Path, feed: str, suite: str) -> None:
    entity = repo / "feeds" / f"{feed}.yaml"
    entity.write_text(entity.read_text() + f"quality: {{suite: {suite}}}\n")


def _session_catalog(repo: Path) -> None:
    """The cluster's tables in the test session's own catalog (as the runner tests use), not a metastore server."""
    cluster = repo / "clusters" / "primary.yaml"
    text = cluster.read_text()
    registry = '  registry:\n    endpoint: thrift://127.0.0.1:9083\n    version: "2.3"\n'
    assert registry in text
    cluster.write_text(text.replace(registry, ""))


def _check(monkeypatch, capsys, *args: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def,type-arg]
    monkeypatch.setattr("sys.argv", ["quality_check.py", *args])
    code = quality_check()
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_table_partition_failing_its_suite_is_not_published_and_passes_once_fixed(
        spark, tmp_path: Path, monkeypatch, capsys) -> None:
    repo, root = make_repo(tmp_path)
    _session_catalog(repo)
    _clicks_daily_table(spark, root)
    _hourly_summaries(root, DAY, clicks=5)
    suite = _suite(repo, "clicks-daily-table", [*PASSING, EVERY_HOUR])
    _declare(repo, "clicks-daily-table", suite)
    (root / "data/clicks-hourly-summary/2026/11/20/07/part-0.json").write_text(
        json.dumps({"page": "/", "clicks": 0, "users": 0, "clicks_3h": 10}) + "\n")  # the hole

    rollup = repo / "processes" / "daily-clicks-rollup.yaml"
    rollup.write_text(rollup.read_text().replace("  attempts: 3\n", "  attempts: 1\n"))  # retries: the other tests
    blocked = new_runner(spark, repo, "daily-clicks-rollup", TestClock(DAY + timedelta(days=1))).run(
        DAY + timedelta(days=1))
    assert (blocked.status, blocked.attempts) == ("FAILED", 1)
    assert "expect_column_values_to_be_between(hours_with_clicks): 1 of 1 unexpected" in (blocked.reason or "")
    assert spark.sql("SHOW PARTITIONS web.clicks_daily").count() == 0
    assert [r.tableName for r in spark.sql("SHOW TABLES IN web LIKE 'clicks_daily*'").collect()] == ["clicks_daily"]
    assert not (root / "data/clicks-daily/2026/11/20").exists()  # the other output is held back with it
    [gate] = json.loads((root / RECORDS / "attempt-001.json").read_text())["quality"]
    assert (gate["feed"], gate["passed"], gate["evaluated"]) == ("clicks-daily-table", 3, 4)

    (root / "data/clicks-hourly-summary/2026/11/20/07/part-0.json").write_text(
        json.dumps({"page": "/", "clicks": 5, "users": 1, "clicks_3h": 5}) + "\n")
    fixed = new_runner(spark, repo, "daily-clicks-rollup", TestClock(DAY + timedelta(days=1)), run_id="run2").run(
        DAY + timedelta(days=1))
    assert (fixed.status, fixed.counters()["quality"]) == ("SUCCEEDED", "4/4 passed")
    assert [r.partition for r in spark.sql("SHOW PARTITIONS web.clicks_daily").collect()] == ["ds=2026-11-20"]

    code, status = _check(monkeypatch, capsys, "--repo", str(repo), "--feed", "clicks-daily-table", "--cluster",
                          "primary", "--time", "2026-11-20T00:00Z")
    assert (code, status["status"], status.get("quality")) == (0, "SUCCEEDED", "4/4 passed"), status
    stricter = _suite(repo, "stricter", [{"type": "expect_column_max_to_be_between",
                                          "kwargs": {"column": "clicks", "max_value": 100}}])
    code, status = _check(monkeypatch, capsys, "--repo", str(repo), "--feed", "clicks-daily-table", "--cluster",
                          "primary", "--time", "2026-11-20T00:00Z", "--suite", stricter)
    assert (code, status["status"], status["quality"]) == (1, "FAILED", "0/1 passed")
    assert status["results"][0]["expectations"][0]["observed_value"] == 120  # 24 hours of 5 clicks


@pytest.mark.jvm
def test_quality_check_tells_published_hours_apart_whatever_on_failure_says(
        spark, tmp_path: Path, monkeypatch, capsys) -> None:
    repo, root = make_repo(tmp_path, quality=True)
    feed = repo / "feeds" / "clicks-hourly-summary.yaml"
    feed.write_text(feed.read_text().replace("on-failure: block", "on-failure: warn"))
    write_clicks(root, T - timedelta(hours=2), 3)
    assert new_runner(spark, repo, "hourly-clicks-summary", TestClock(T)).run(T).status == "SUCCEEDED"
    bad = root / "data/clicks-hourly-summary/2026/11/21/11"  # written by an outside system, never gated
    bad.mkdir(parents=True)
    (bad / "part-0.json").write_text(json.dumps({"page": "/", "clicks": 1, "users": 2, "clicks_3h": 1}) + "\n")
    (bad / "_SUCCESS").write_text("")
    common = ("--repo", str(repo), "--feed", "clicks-hourly-summary", "--cluster", "primary")

    assert _check(monkeypatch, capsys, *common, "--time", "2026-11-21T10:00Z")[0] == 0
    code, status = _check(monkeypatch, capsys, *common, "--time", "2026-11-21T11:00Z")
    assert (code, status["quality"]) == (1, "6/7 passed")
    assert "expect_column_pair_values_a_to_be_greater_than_b(clicks, users): 1 of 1 unexpected" in status["error"]
    code, status = _check(monkeypatch, capsys, *common, "--time", "2026-11-21T12:00Z")
    assert (code, status["status"]) == (3, "WAITING")
    code, status = _check(monkeypatch, capsys, *common, "--time", "2026-11-21T12:30Z")
    assert code == 2 and "12:30" in status["error"]
    code, status = _check(monkeypatch, capsys, *common, "--time", "2025-12-31T23:00Z")  # before its validity
    assert code == 4 and status["error"].startswith("2025-12-31T23:00Z is outside the validity of feed "
                                                    "'clicks-hourly-summary' on cluster 'primary'")
    code, status = _check(monkeypatch, capsys, "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                          "--time", "2026-11-21T10:00Z")
    assert code == 2 and status["error"] == ("The feed 'clicks' declares no quality suite: add `quality: {suite: "
                                             "quality/clicks.json}` to it, or give --suite.")

    with lineage_receiver() as receiver:  # the check's lineage run carries the definition of the feed it checked
        monkeypatch.setenv("OPENLINEAGE_URL", receiver.url)
        assert _check(monkeypatch, capsys, *common, "--time", "2026-11-21T10:00Z")[0] == 0
        monkeypatch.delenv("OPENLINEAGE_URL")
    expected = definition_hash(ConfigRepo.load(repo).feed("clicks-hourly-summary"), repo)
    assert [(e["eventType"], e["job"]["name"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"])
            for e in receiver.events] == [("START", "quality.clicks-hourly-summary", expected),
                                          ("COMPLETE", "quality.clicks-hourly-summary", expected)]

    done = spark_submit("quality_check", *common, "--time", "2026-11-21T11:00Z", cwd=tmp_path)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["quality"] == "6/7 passed"
