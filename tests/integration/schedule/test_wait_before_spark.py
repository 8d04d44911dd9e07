"""A new user's hourly process (`toolkit init`), its generated crontab line run as cron runs it (`env -i`, cron's
PATH, the crontab's variables, /bin/sh) at an hour whose input has not arrived (issue 71). The call waits for it
with no JVM: one small Python process, the instance recorded WAITING and shown so by `toolkit status`. Once the hour
is published, spark-submit starts and the process succeeds. A scheduler's SIGTERM ends a wait with its lease
released."""

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

from tests.integration.schedule.test_crontab_under_cron import CRON_PATH, TOOLKIT, command_of, cron_environment
from tests.integration.spark_submit import PROJECT, SPARK_SUBMIT
from tests.processes import running

PROCESS = "hourly-event-counts"


def new_users_crontab(tmp_path: Path) -> tuple[Path, str]:
    """(the cluster's root, the crontab `toolkit schedule` writes for the repo `toolkit init` made)."""
    root = tmp_path / "root"
    bare = {"PATH": CRON_PATH}
    made = subprocess.run([str(TOOLKIT), "init", str(tmp_path / "conf"), "--root", f"file://{root}"],
                          capture_output=True, text=True, timeout=60, env=bare)
    assert made.returncode == 0, made.stderr
    crontab = subprocess.run([str(TOOLKIT), "schedule", "--repo", str(tmp_path / "conf"), "--cluster", "local",
                              "--toolkit", str(TOOLKIT), "--spark-submit", str(SPARK_SUBMIT), "--entrypoints",
                              str(PROJECT / "entrypoints"), "--log-dir", str(tmp_path / "logs"),
                              "--submit-args", "--master local[1] --conf spark.ui.enabled=false"],
                             capture_output=True, text=True, timeout=60, env=bare)
    assert crontab.returncode == 0, crontab.stderr
    return root, crontab.stdout


def start_as_cron(crontab: str, home: Path) -> subprocess.Popen[str]:
    env = {**cron_environment(crontab, home), "SPARK_LOCAL_IP": "127.0.0.1"}
    return subprocess.Popen(["env", "-i", *(f"{k}={v}" for k, v in env.items()), "/bin/sh", "-c",
                             command_of(crontab, f"--process {PROCESS}")], text=True, start_new_session=True,
                            env={"PATH": CRON_PATH})


def waiting_record(root: Path, timeout: float = 60) -> tuple[Path, dict[str, object]]:
    """The instance record the wait writes, once it says WAITING."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in (root / "feed-toolkit/working/ledger/processes" / PROCESS).glob("*/instance.json"):
            record = json.loads(path.read_text())
            if record["status"] == "WAITING":
                return path, record
        time.sleep(0.2)
    raise AssertionError("no WAITING record")


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below `pid`."""
    parents: dict[int, int] = {}
    lines: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                lines[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except (FileNotFoundError, ProcessLookupError):
                continue
            parents[int(entry)] = int(stat[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent:
                found.append((child, lines[child]))
                frontier.append(child)
    return found


def test_the_generated_line_waits_without_a_jvm_and_a_schedulers_sigterm_ends_it_with_its_lease_released(
        tmp_path: Path) -> None:
    root, crontab = new_users_crontab(tmp_path)
    assert "--wait-first" in command_of(crontab, f"--process {PROCESS}")
    call = start_as_cron(crontab, tmp_path)
    try:
        path, record = waiting_record(root)
        hour = str(record["time"])  # the instance the firing stands for: this hour
        below = descendants(call.pid)
        assert not any("java" in line for _, line in below), below
        [waiter] = [pid for pid, line in below if " call " in line]
        status = subprocess.run([str(TOOLKIT), "status", "--repo", str(tmp_path / "conf"), "--cluster", "local",
                                 "--process", PROCESS, "--from", hour, "--to", hour], capture_output=True, text=True,
                                timeout=60, env={"PATH": CRON_PATH})
        assert f"{hour}  WAITING" in status.stdout and f"missing events {hour}" in status.stdout, status.stdout
        os.kill(waiter, signal.SIGTERM)
        call.wait(timeout=60)
        assert not running(waiter)
    finally:
        if call.poll() is None:
            os.killpg(call.pid, signal.SIGKILL)
    leases = [json.loads(lease.read_text()) for lease in path.parent.glob("lock.*")]
    assert [lease["state"] for lease in leases if lease["run_id"] == record["run_id"]] == ["RELEASED"], leases
    assert json.loads(path.read_text())["status"] == "WAITING"


@pytest.mark.jvm
def test_the_generated_line_starts_spark_submit_once_the_inputs_are_there(tmp_path: Path) -> None:
    """The hand-over, under cron: the wait finds the hour's events at its first look and execs spark-submit, whose
    process succeeds (the wait until a later poll: tests/unit/process_runner/test_wait_before_spark.py; the
    latency from a publication to the start: bench/wait_bench.py)."""
    root, crontab = new_users_crontab(tmp_path)
    now = datetime.now(timezone.utc)
    for t in (now, now + timedelta(hours=1)):  # the firing's hour, should it turn meanwhile
        folder = root / "data/events" / t.strftime("%Y/%m/%d/%H")
        folder.mkdir(parents=True)
        (folder / "part-0.json").write_text('{"event":"click"}\n{"event":"view"}\n{"event":"click"}\n')
        (folder / "_SUCCESS").touch()
    call = start_as_cron(crontab, tmp_path)
    try:
        assert call.wait(timeout=240) == 0
    finally:
        if call.poll() is None:
            os.killpg(call.pid, signal.SIGKILL)
    log = (tmp_path / "logs" / f"process-{PROCESS}.log").read_text()
    line = json.loads(log.strip().splitlines()[-1])
    hour = str(line["time"])
    assert hour in (now.strftime("%Y-%m-%dT%H:00Z"), (now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:00Z"))
    assert line["status"] == "SUCCEEDED", log[-3000:]
    assert "Traceback" not in log
    counts = root / "data/event-counts" / hour[:4] / hour[5:7] / hour[8:10] / hour[11:13]
    rows = sorted((json.loads(text) for part in counts.glob("part-*.json") for text in part.read_text().splitlines()),
                  key=lambda row: row["event"])
    assert rows == [{"event": "click", "n": 2}, {"event": "view", "n": 1}]


def test_a_wait_killed_with_sigkill_is_taken_over_once_its_lease_expired_and_nothing_ran(tmp_path: Path) -> None:
    """kill -9 of `toolkit call --wait-first` while it holds the instance and waits: nothing started, its lease
    left HELD; the next call is told who holds it (exit 5) until the lease expires, then takes it over and waits
    under its own run."""
    root, _ = new_users_crontab(tmp_path)
    stand_in = tmp_path / "stand-in" / "process.py"  # spark-submit's stand-in, which records that it started
    stand_in.parent.mkdir()
    stand_in.write_text(f"open({str(tmp_path / 'started')!r}, 'w').write('started')\n")
    hour = "2026-11-30T10:00Z"

    def call(*extra: str) -> list[str]:
        return [str(TOOLKIT), "call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--time", hour,
                "--wait-first", "--", sys.executable, str(stand_in), "--repo", str(tmp_path / "conf"), "--process",
                PROCESS, "--cluster", "local", "--now", "2026-11-30T10:30Z", "--lease", "4", *extra]

    first = subprocess.Popen(call(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    path, record = waiting_record(root)
    first.kill()
    first.wait(timeout=30)
    held = [json.loads(lease.read_text()) for lease in path.parent.glob("lock.*")]
    assert [lease["state"] for lease in held if lease["run_id"] == record["run_id"]] == ["HELD"]
    refused = subprocess.run(call("--no-wait"), capture_output=True, text=True, timeout=60)
    assert refused.returncode == 5 and record["run_id"] in refused.stderr, refused.stderr
    time.sleep(4.5)  # the dead wait's lease expires
    second = subprocess.run(call("--no-wait"), capture_output=True, text=True, timeout=60)
    assert second.returncode == 3, second.stderr
    line = json.loads(second.stdout.strip().splitlines()[-1])
    after = json.loads(path.read_text())
    assert (line["status"], after["status"], after["run_id"]) == ("WAITING", "WAITING", line["run_id"])
    assert line["run_id"] != record["run_id"]
    assert not (tmp_path / "started").exists()  # neither call started spark-submit
