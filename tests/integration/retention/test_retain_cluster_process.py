"""Retention of a whole cluster (`--all`, issue 36) as a scheduler runs it: `toolkit retain` killed with SIGKILL while
its feeds are retained takes its worker processes with it, and called again ends with the tree an uninterrupted
call leaves (only expired instances gone); `spark-submit entrypoints/retention.py --all` starts no SparkContext
while only file feeds are due, and one Spark session beside them when a table feed is due, a failing feed being its
own line."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.integration.spark_submit import spark_submit
from tests.unit.retention.retention_repo import tree
from tests.unit.retention.test_retain_cluster import CALL_TIME, TABLE_FEED
from toolkit.devtools.feeds_repo import CLUSTER, write_feeds_repo, write_hours

TOOLKIT = Path(sys.executable).parent / "toolkit"
FIRST = datetime(2025, 1, 1, tzinfo=timezone.utc)
FEEDS = 6
LEASE = "1.5"  # seconds: the killed call's leases expire before the rerun


def lake(folder: Path, feeds: int = FEEDS) -> tuple[Path, Path]:
    root = folder / "lake"
    root.mkdir(parents=True)
    for name in write_feeds_repo(folder / "conf", root, feeds):
        write_hours(root, name, FIRST, 24 * 35)
    return folder / "conf", root


def retain_all(repo: Path, *extra: str) -> list[str]:
    return [str(TOOLKIT), "retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", CALL_TIME,
            "--lease", LEASE, "--parallel", "2", *extra]


def children(pid: int) -> set[int]:
    """The processes `pid` forked (its retention workers)."""
    try:
        return {int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def alive(pids: set[int], within: float) -> set[int]:
    """Those of `pids` still running (not gone, not a zombie) after `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        running = set()
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                running.add(pid)
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def data(root: Path) -> set[str]:
    return {path for path in tree(root) if path.startswith("data/")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    repo, root = lake(tmp_path_factory.mktemp("reference"))
    assert subprocess.run(retain_all(repo), capture_output=True, timeout=120).returncode == 0
    return data(root)


@pytest.mark.parametrize("gone", [1, 3, 5])
def test_killed_while_feeds_are_retained_then_called_again(tmp_path: Path, reference: set[str], gone: int) -> None:
    """Killed once `gone` feeds have lost their first day (the others being retained or waiting their turn)."""
    repo, root = lake(tmp_path)
    first_days = [root / "data" / f"feed-{k:04d}" / "2025" / "01" / "01" for k in range(FEEDS)]
    call = subprocess.Popen(retain_all(repo), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while sum(not day.exists() for day in first_days) < gone and call.poll() is None and time.monotonic() < deadline:
        workers |= children(call.pid)
        time.sleep(0.002)
    call.send_signal(signal.SIGKILL)
    call.communicate(timeout=60)  # a worker left behind would hold the pipes open
    assert call.returncode == -signal.SIGKILL  # killed, not ended on its own
    assert workers and not alive(workers, within=2.0)  # the call's workers died with it: none goes on deleting
    assert data(root) >= reference  # nothing that is not expired went
    time.sleep(float(LEASE) + 0.5)
    again = subprocess.run(retain_all(repo), capture_output=True, text=True, timeout=120)
    assert again.returncode in (0, 4), again.stdout + again.stderr  # 4: the killed call had finished every feed
    summary = json.loads(again.stdout.splitlines()[-1])
    assert summary["status"] in ("SUCCEEDED", "SKIPPED") and "Traceback" not in again.stderr
    assert data(root) == reference
    for k in range(FEEDS):
        assert (root / f"toolkit/working/retention/feed-{k:04d}/20250301T0000Z.json").is_file()
    last = subprocess.run(retain_all(repo), capture_output=True, text=True, timeout=120)
    assert (last.returncode, json.loads(last.stdout.splitlines()[-1])["feeds_due"]) == (4, 0)


def test_two_calls_at_once_retain_each_feed_once(tmp_path: Path, reference: set[str]) -> None:
    repo, root = lake(tmp_path)
    calls = [subprocess.Popen(retain_all(repo), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [call.communicate(timeout=120) for call in calls]
    lines = [json.loads(line) for out, _ in outputs for line in out.splitlines()[:-1]]
    succeeded = [line["entity"] for line in lines if line["status"] == "SUCCEEDED"]
    assert sorted(succeeded) == [f"feed-{k:04d}" for k in range(FEEDS)]  # each feed retained by one call
    blocked = [line for line in lines if line["status"] == "BLOCKED"]
    assert all("is being run by run " in str(line["error"]) for line in blocked)
    assert data(root) == reference


def spark_lake(tmp_path: Path, table_start: str) -> tuple[Path, Path]:
    repo, root = lake(tmp_path, feeds=2)
    (repo / "feeds" / "visits.yaml").write_text(TABLE_FEED.replace("2025-01-01T00:00Z", table_start))
    return repo, root


@pytest.mark.jvm
def test_spark_submit_starts_no_spark_context_while_only_file_feeds_are_due(tmp_path: Path,
                                                                           reference: set[str]) -> None:
    repo, root = spark_lake(tmp_path, table_start="2025-06-01T00:00Z")  # the table feed's cadence starts later
    result = spark_submit("retention", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", CALL_TIME,
                          "--verbose", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted((line["entity"], line["status"]) for line in lines[:-1]) == \
        [("feed-0000", "SUCCEEDED"), ("feed-0001", "SUCCEEDED")]
    assert (lines[-1]["feeds"], lines[-1]["feeds_due"]) == (3, 2)
    assert "SparkContext" not in result.stderr and "SparkSession" not in result.stderr


@pytest.mark.jvm
def test_a_due_table_feed_runs_in_one_spark_session_and_fails_alone(tmp_path: Path) -> None:
    repo, root = spark_lake(tmp_path, table_start="2025-01-01T00:00Z")
    result = spark_submit("retention", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", CALL_TIME,
                          "--verbose", cwd=tmp_path)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    lines = {line["entity"]: line for line in map(json.loads, result.stdout.splitlines())}
    assert {name: line["status"] for name, line in lines.items()} == {
        "feed-0000": "SUCCEEDED", "feed-0001": "SUCCEEDED", "visits": "FAILED", None: "FAILED"}
    assert lines["visits"]["error"].startswith("The table web.visits does not exist in the Spark session's catalog")
    assert lines[None]["error"] == "1 of 3 feeds due did not succeed: visits (FAILED)"
    assert result.stderr.count("INFO SparkContext: Running Spark version") == 1
    assert not (root / "data/feed-0000/2025/01/01").exists() and (root / "data/feed-0000/2025/01/30").exists()
