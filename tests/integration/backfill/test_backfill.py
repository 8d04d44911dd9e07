"""`toolkit backfill` through the real command and real spark-submit runs, on a pipeline of two processes and a
replication (pipeline.py): a backfill killed with -9 while its runs are under way, a second backfill raced
against it (told who holds the entities, nothing started), and the call after it resuming: every instance
published once, no consumer instance started before the instances it reads were published."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.integration.spark_submit import environment
from tests.unit.backfill.pipeline import WORKFLOW, make_pipeline, rows_of, write_raw
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import parse_wall_clock_stamp
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.statuses import Status

H0 = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
H1 = H0 + timedelta(hours=1)
SUBMIT_ARGS = "--master local[1] --conf spark.ui.enabled=false"
LEASE = "6"
# The runs the first backfill starts wait while the file HOLD names is there: none of them ends before the test has
# killed that backfill, so it cannot start what comes after them (on a quiet machine a stage-one run ended during the
# raced call, and the first backfill started the replication that the resumed call is meant to start).
HOLD = """import os, time

_held, _until = os.environ.get("HOLD", ""), time.monotonic() + 120
while _held and os.path.exists(_held) and time.monotonic() < _until:
    time.sleep(0.2)
"""


def backfill(repo: Path, tmp: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "toolkit", "backfill", "--repo", str(repo), "--cluster", "primary",
            "--downstream-of", "raw", "--from", "2026-11-21T10:00Z", "--to", "2026-11-21T11:00Z",
            "--submit-args", SUBMIT_ARGS, "--lease", LEASE, "--log-dir", str(tmp / "logs"), *extra]


def _ledgers(repo: Path) -> tuple[Ledger, Ledger]:
    config = ConfigRepo.load(repo)
    return (Ledger.of(LocalFileSystem(), config.cluster("primary")),
            Ledger.of(LocalFileSystem(), config.cluster("backup")))


def _wait_for(condition, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.mark.jvm
def test_killed_raced_and_resumed_every_instance_once_in_dependency_order(tmp_path: Path) -> None:
    repo, primary_root, backup_root = make_pipeline(tmp_path, first_consumer=H1)
    (repo / "workflows" / "copy_rows.py").write_text(HOLD + WORKFLOW)
    hold = tmp_path / "hold"
    hold.touch()
    write_raw(primary_root, H0, 2)
    primary, backup = _ledgers(repo)

    plan = subprocess.run([*backfill(repo, tmp_path, "--dry-run", "--format", "json")], capture_output=True,
                          text=True, env=environment(), timeout=120)
    assert plan.returncode == 0, plan.stderr
    planned = {(e["kind"], e["name"]): [(i["time"], i["verdict"], i["order"]) for i in e["instances"]]
               for e in json.loads(plan.stdout)["entities"]}
    assert planned[("process", "stage-one")] == [("2026-11-21T10:00Z", "run", 1), ("2026-11-21T11:00Z", "run", 3)]
    assert planned[("replication", "mid")] == [("2026-11-21T10:00Z", "run", 2), ("2026-11-21T11:00Z", "run", 5)]
    assert planned[("process", "stage-two")] == [("2026-11-21T11:00Z", "run", 4)]

    first = subprocess.Popen(backfill(repo, tmp_path, "--parallel", "2"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**environment(), "HOLD": str(hold)},
                             start_new_session=True)
    try:
        # both stage-one instances start at once (nothing before them): kill the backfill while they run
        _wait_for(lambda: all(primary.instance_lock("stage-one", t).current() is not None for t in (H0, H1)), 120,
                  "the first backfill never started both stage-one instances")
        raced = subprocess.run(backfill(repo, tmp_path), capture_output=True, text=True, env=environment(),
                               timeout=120)
        assert raced.returncode == 5, raced.stderr
        assert "is being backfilled by run" in raced.stderr and "nothing was started" in raced.stderr
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
        hold.unlink()  # the runs it started end now
    # the runs it started go on under their own leases; the next call waits for its locks' lease to end
    deadline = time.monotonic() + 120
    while True:
        resumed = subprocess.run(backfill(repo, tmp_path, "--parallel", "2"), capture_output=True, text=True,
                                 env=environment(), timeout=600)
        if resumed.returncode != 5 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert resumed.stdout.startswith("backfill: 5 instance(s) of 3 entities from 2026-11-21T10:00Z to "
                                     "2026-11-21T11:00Z:"), resumed.stdout
    assert resumed.stdout.count("\n") == 1  # one summary line; the progress is on stderr
    assert "started replication of feed mid into backup 2026-11-21T10:00Z" in resumed.stderr

    for t in (H0, H1):
        record = primary.instance("stage-one", t)
        assert record is not None and record.status == Status.SUCCEEDED
        for ledger in (primary, backup):
            events = ledger.events("mid", t)
            assert [event.kind for event in events] == ["published"], (ledger, t, events)  # never published twice
        assert rows_of(backup_root / "replica" / "mid" / f"{t:%Y/%m/%d/%H}") == \
            [{"hour": f"{t:%H}", "n": n, "stage_one": 1} for n in range(2)]
    consumer = primary.instance("stage-two", H1)
    assert consumer is not None and consumer.status == Status.SUCCEEDED and consumer.attempts == 1
    [out] = primary.events("out", H1)
    assert rows_of(primary_root / "data" / "out" / f"{H1:%Y/%m/%d/%H}") == \
        [{"hour": hour, "n": n, "stage_one": 1, "stage_two": 1} for hour in ("10", "11") for n in range(2)]
    # no consumer instance started before what it reads was published (records are to the second)
    [attempt] = primary.attempts("stage-two", H1)
    started = parse_wall_clock_stamp(attempt.started)
    for t in (H0, H1):
        assert started >= parse_wall_clock_stamp(primary.events("mid", t)[-1].published)
        assert parse_wall_clock_stamp(backup.events("mid", t)[-1].published) >= \
            parse_wall_clock_stamp(primary.events("mid", t)[-1].published)

    again = subprocess.run(backfill(repo, tmp_path, "--dry-run"), capture_output=True, text=True, env=environment(),
                           timeout=120)
    assert again.returncode == 0 and "backfill plan: 0 of 5 instance(s) of 3 entities to run" in again.stdout
    assert "succeeded already" in again.stdout and "replicated already" in again.stdout
