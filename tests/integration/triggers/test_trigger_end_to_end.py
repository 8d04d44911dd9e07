"""Data-aware triggering end to end, through the real `toolkit trigger` command and real spark-submit runs:
an outside producer publishes clicks (`toolkit publish`), the hourly summary (an instance consumer) runs only for
the hour whose window is complete, exactly once; a batch consumer over the summaries and a feed replicated from
another cluster (condition all) waits until both have data, keeps its batch when it fails, is killed with -9
while replaying it, and the sweeps after its lease expired replay and commit that batch: every event consumed
exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.batch_consumer import NAME, WORKFLOW
from tests.integration.process_runner.process_repo import make_repo, utc, write_clicks
from tests.integration.spark_submit import environment
from toolkit.cli.main import main as toolkit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

T = utc(2026, 11, 21, 10)
SUBMIT_ARGS = "--master local[1] --conf spark.ui.enabled=false"
# The runs' lease (toolkit trigger --lease): a killed replay is taken over a quarter minute later, not a minute later;
# still long enough that the sweep right after the kill finds the batch held (renewed every third: 10 s or more left).
LEASE = "15"
PARTNER = """kind: feed
name: partner-clicks
description: Clicks a partner team writes on backup, replicated into primary.
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
clusters:
  - name: backup
    type: source
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
  - name: primary
    type: target
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
locations:
  data: /data/partner-clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}
"""
CONSUMER = f"""kind: process
name: {NAME}
clusters:
  - name: primary
    validity: {{start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}}
trigger: {{on: data, condition: all}}
inputs:
  - {{name: clicks, feed: partner-clicks}}
  - {{name: summary, feed: clicks-hourly-summary}}
outputs:
  - {{name: daily, feed: clicks-daily}}
properties:
  fail-if: FAIL
  hold-while: HOLD
workflow:
  engine: pyspark
  path: workflows/batch_rollup.py
"""


def sweep(repo: Path, tmp: Path, *, wait: bool = True) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolkit", "trigger", "--repo", str(repo), "--cluster", "primary",
               "--submit-args", SUBMIT_ARGS, "--lease", LEASE, "--log-dir", str(tmp / "logs"),
               *(["--wait"] if wait else [])]
    return subprocess.run(command, capture_output=True, text=True, env=environment(), timeout=600)


def _staged(root: Path) -> bool:
    """A staging folder of the daily output (hidden, beside the instance) exists."""
    return any((root / "data/clicks-daily/2026/11").glob(".*"))


def started(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.removeprefix("started: ") for line in result.stdout.splitlines() if line.startswith("started: ")]


@pytest.mark.jvm
def test_producers_and_consumers_through_toolkit_trigger(
        run_entrypoint: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    summary = repo / "processes" / "hourly-clicks-summary.yaml"
    summary.write_text(summary.read_text().replace("frequency: hours(1)\n", "frequency: hours(1)\ntrigger: data\n"))
    (repo / "feeds" / "partner-clicks.yaml").write_text(PARTNER)
    (repo / "workflows" / "batch_rollup.py").write_text(WORKFLOW)
    (repo / "processes" / f"{NAME}.yaml").write_text(
        CONSUMER.replace("FAIL", str(tmp_path / "fail")).replace("HOLD", str(tmp_path / "hold")))
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))

    # The outside producer's clicks of 08:00 to 10:00; the partner's clicks of 10:00 replicated from backup
    write_clicks(root, T - timedelta(hours=2), 3)
    for hour in (8, 9, 10):
        assert toolkit(["publish", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                        "--time", f"2026-11-21T{hour:02d}:00Z"]) == 0
    partner = tmp_path / "backup" / "data" / "partner-clicks" / "2026" / "11" / "21" / "10"
    partner.mkdir(parents=True)
    (partner / "part-00000.json").write_text('{"page": "/", "user": "p1"}\n')
    (partner / "_SUCCESS").write_text("")
    # In process (its spark-submit is test_file_replication_hadoop's): the sweeps' runs below are the real ones
    copied = run_entrypoint("replication", "--repo", str(repo), "--feed", "partner-clicks", "--target", "primary",
                            "--time", "2026-11-21T10:00Z", cwd=tmp_path)
    assert copied.returncode == 0, copied.stdout[-3000:]

    # Only 10:00's window (08:00 to 10:00) is complete; the batch consumer waits for a summary
    first = sweep(repo, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert started(first) == ["hourly-clicks-summary 2026-11-21T10:00Z"]
    assert "due, not started: hourly-clicks-summary 2026-11-21T08:00Z: waiting for clicks@2026-11-21T06:00Z" \
           in first.stdout
    assert f"due, not started: {NAME}: 1 event(s) pending, waiting for clicks-hourly-summary" in first.stdout
    assert (root / "data/clicks-hourly-summary/2026/11/21/10/_SUCCESS").exists()

    # The batch consumer's first run fails: its batch (the summary's and the replica's events) stays open
    (tmp_path / "fail").touch()
    failed = sweep(repo, tmp_path)
    assert started(failed) == [f"{NAME} batch"] and failed.returncode == 1, failed.stdout
    queue = ConsumerQueue(ledger, NAME, {"partner-clicks", "clicks-hourly-summary"})
    [plan] = queue.open_plans()
    planned = sorted(plan.event_ids)
    [replica] = ledger.events("partner-clicks", T)
    [produced] = ledger.events("clicks-hourly-summary", T)
    assert planned == sorted([replica.event_id, produced.event_id]) and replica.producer.startswith("replication")

    # The replay is killed with -9 in its workflow; sweeps find it running, then (its lease expired) replay it
    (tmp_path / "fail").unlink()
    (tmp_path / "hold").touch()
    assert started(sweep(repo, tmp_path, wait=False)) == [f"{NAME} batch"]
    deadline = time.monotonic() + 240
    lease = queue.lease(plan.seq)
    while time.monotonic() < deadline and not (lease is not None and lease.run_id != plan.run_id
                                               and lease.live(time.time()) and _staged(root)):
        time.sleep(0.5)  # the replay holds the batch, and its workflow holds once its staging output is written
        lease = queue.lease(plan.seq)
    assert lease is not None and lease.live(time.time()) and _staged(root), "the replay never held its batch"
    assert lease.expires - time.time() <= float(LEASE), "the replay's lease is not the sweep's --lease"
    os.killpg(os.getpgid(int(lease.holder.rsplit(":", 1)[1])), signal.SIGKILL)
    (tmp_path / "hold").unlink()
    running = sweep(repo, tmp_path)
    assert started(running) == [] and f"{NAME}: 1 batch(es) running" in running.stdout
    while time.monotonic() < deadline:
        replayed = sweep(repo, tmp_path)
        if started(replayed):
            break
        time.sleep(1)
    assert started(replayed) == [f"{NAME} batch"] and replayed.returncode == 0, replayed.stdout

    # Each event consumed once: one plan, committed once; nothing due any more; the summary ran once
    last = sweep(repo, tmp_path)
    assert started(last) == [] and last.returncode == 0
    [batch] = queue.batches()
    assert batch.state == "consumed" and sorted(batch.plan.event_ids) == planned and queue.pending() == []
    lines = [json.loads(line) for part in sorted((root / "data/clicks-daily/2026/11/21").glob("part-*"))
             for line in part.read_text().splitlines()]
    assert [(line["seq"], sorted(line["events"])) for line in lines] == [(1, planned)]
    record = ledger.instance("hourly-clicks-summary", T)
    assert record is not None and (record.status, record.attempts) == ("SUCCEEDED", 1)
