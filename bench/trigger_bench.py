"""Benchmark of the data-trigger sweep (`toolkit trigger`): a ledger holding a year of hourly events of 10 feeds
(87,600 events, each an event file and a journal entry) and 100 data-triggered hourly processes reading them.

1. A sweep with nothing due (the state written by the sweep before it): the sweep's own work in a process that
   has loaded the config repo, and the whole command as cron calls it (`toolkit trigger`: a new Python process
   that imports the toolkit and loads the 110 entity files first), beside `find` listing the ledger's event
   folders (what a sweep without a journal would have to read) and `python -c pass` (the interpreter's start).
2. A sweep with 100 new events (10 new hours of the 10 feeds): 100 instances due, each started (spark-submit
   replaced by a script that records when it started, so that no Spark runs).
3. Latency: from an event written to the consumer's spark-submit started, for one event and one sweep.
Targets (issue 15): a sweep with nothing due under 0.5 s and within 3x of the find; event to spark-submit
under 1 s plus the cron period (Oozie polls inputs every 60 s and materializes every 300 s; Dagster's sensors
tick every 30 s).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402
from toolkit.core.el.timestamps import format_timestamp  # noqa: E402
from toolkit.core.ledger.journal import JournalEntry  # noqa: E402
from toolkit.core.ledger.layout import LedgerLayout  # noqa: E402
from toolkit.core.ledger.records import (  # noqa: E402
    PUBLISHED,
    DatasetEvent,
    event_id,
    event_json,
    to_json,
    wall_clock_stamp,
)
from toolkit.core.ledger.store import Ledger  # noqa: E402
from toolkit.core.storage.local import LocalFileSystem  # noqa: E402
from toolkit.orchestration.triggers.state import ProcessState, SweepState  # noqa: E402

FEEDS, PROCESSES, HOURS = 10, 100, 8760
START = datetime(2025, 1, 1, tzinfo=timezone.utc)
TOOLKIT = [sys.executable, "-m", "toolkit"]

CLUSTER = """kind: cluster
name: primary
interfaces:
  readonly: {{endpoint: "file://{root}", version: "3.4"}}
  write: {{endpoint: "file://{root}", version: "3.4"}}
  execute: {{endpoint: "local[1]", version: "4.0"}}
  workflow: {{endpoint: "cron://localhost", version: "1.0"}}
locations:
  working: /working
"""
FEED = """kind: feed
name: f{n:02d}
frequency: hours(1)
clusters:
  - name: primary
    type: source
    validity: {{start: 2025-01-01T00:00Z, end: 2099-12-31T00:00Z}}
locations:
  data: /data/f{n:02d}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""
PROCESS = """kind: process
name: p{n:03d}
clusters:
  - name: primary
    validity: {{start: 2025-01-01T00:00Z, end: 2099-12-31T00:00Z}}
frequency: hours(1)
trigger: data
inputs:
  - {{name: data, feed: f{feed:02d}, start: "now(0,0)", end: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/noop.py}}
"""
RECORDER = """#!/bin/sh
date +%s.%N >> {log}
"""


def make_repo(scratch: Path) -> Path:
    repo = scratch / "conf"
    for folder in ("clusters", "feeds", "processes", "workflows"):
        (repo / folder).mkdir(parents=True)
    (repo / "clusters/primary.yaml").write_text(CLUSTER.format(root=scratch / "primary"))
    for n in range(FEEDS):
        (repo / f"feeds/f{n:02d}.yaml").write_text(FEED.format(n=n))
    for n in range(PROCESSES):
        (repo / f"processes/p{n:03d}.yaml").write_text(PROCESS.format(n=n, feed=n % FEEDS))
    (repo / "workflows/noop.py").write_text("def run(spark, ctx):\n    pass\n")
    return repo


def write_events(ledger_root: Path, hours: range, published_ms: int, spacing_ms: int = 1) -> None:
    """Event files and journal entries as Ledger._record writes them, without reading the last event (fast):
    the instances of each hour of `hours` published `spacing_ms` after the hour before, from `published_ms`."""
    layout = LedgerLayout(f"file://{ledger_root}")
    journal_root = ledger_root / "journal"
    for k in hours:
        t = START + timedelta(hours=k)
        for n in range(FEEDS):
            feed, stamp = f"f{n:02d}", format_timestamp(t)
            ms = published_ms + (k - hours.start) * spacing_ms + n
            event = DatasetEvent(
                feed=feed, cluster="primary", time=stamp, run_id="bench", producer="external",
                location=f"file:///data/{feed}/{t:%Y/%m/%d/%H}", published=wall_clock_stamp(ms / 1000),
                kind=PUBLISHED, fingerprint=None, event_id=event_id(ms, "bench", feed, stamp, PUBLISHED))
            path = Path(layout.event_record(feed, t, event.event_id)[len("file://"):])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(event_json(event))
            entry = JournalEntry.of(event)
            bucket = datetime.fromtimestamp(entry.ms // 1000, timezone.utc)
            folder = journal_root / f"{bucket:%Y%m%d}" / f"{bucket:%H}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / entry.name).touch()


def timed(command: list[str], **kwargs: object) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    return time.perf_counter() - began, done


def best_of(runs: int, command: list[str], **kwargs: object) -> tuple[float, subprocess.CompletedProcess[str]]:
    results = [timed(command, **kwargs) for _ in range(runs)]
    return min(results, key=lambda item: item[0])


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="trigger-bench-"))
    try:
        repo = make_repo(scratch)
        ledger_root = scratch / "primary/working/ledger"
        recorder = scratch / "spark-submit"
        started_log = scratch / "started.log"
        recorder.write_text(RECORDER.format(log=started_log))
        recorder.chmod(0o755)
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        sweep = [*TOOLKIT, "trigger", "--repo", str(repo), "--cluster", "primary", "--spark-submit", str(recorder),
                 "--log-dir", str(scratch / "logs")]
        now_ms = int(time.time() * 1000)
        first_ms = now_ms - (HOURS + 2) * 3_600_000  # the year's events, each hour's an hour apart, up to 2 h ago
        began = time.perf_counter()
        write_events(ledger_root, range(HOURS), first_ms, spacing_ms=3_600_000)
        print(f"trigger_bench: {FEEDS} feeds x {HOURS} hourly events = {FEEDS * HOURS} events, {PROCESSES} processes "
              f"(written in {time.perf_counter() - began:.1f} s)")
        # The instances of the year ran already: the state a sweep that read the year's entries would leave.
        ledger = Ledger(LocalFileSystem(), LedgerLayout(f"file://{ledger_root}"))
        last_hour = ledger.journal.entries_since(None, timedelta(0))[-FEEDS:]
        caught_up = ProcessState(position=last_hour[-1].event_id, seen=frozenset(e.event_id for e in last_hour))
        ledger.fs.write_atomically(ledger.layout.sweep_state(),
                                   to_json(SweepState({f"p{n:03d}": caught_up for n in range(PROCESSES)})))
        ledger.fs.write_atomically(ledger.layout.journal_rebuilt(), b"")

        nothing, done = best_of(5, sweep, env=environment)
        assert done.returncode == 0 and "0 run(s) started" in done.stdout, done.stdout + done.stderr
        inside = in_process_sweep(repo, ledger, scratch)
        find, _ = best_of(5, ["find", str(ledger_root / "events")])
        bare, _ = best_of(5, [sys.executable, "-c", "pass"])
        print(f"  sweep with nothing due, in process (config loaded): {inside:.3f} s")
        print(f"  sweep with nothing due (toolkit trigger): {nothing:.3f} s")
        print(f"  find <the ledger's event folders>:        {find:.3f} s")
        print(f"  python -c pass:                           {bare:.3f} s")
        ratio = nothing / find
        print(f"  ratio sweep/find: {ratio:.2f}x   (targets: sweep < 0.5 s, ratio < 3x)")

        write_events(ledger_root, range(HOURS, HOURS + FEEDS), int(time.time() * 1000) - 1000, spacing_ms=FEEDS)
        hundred, done = timed(sweep, env=environment)
        started = sum(line.startswith("started: ") for line in done.stdout.splitlines())
        print(f"  sweep with 100 new events: {hundred:.3f} s, {started} runs started (each process's `parallel` of 1; "
              f"the 100 events make {PROCESSES * FEEDS} instances due)")

        started_log.unlink(missing_ok=True)
        t0 = time.time()
        write_events(ledger_root, range(HOURS + FEEDS, HOURS + FEEDS + 1), int(t0 * 1000))
        _, done = timed(sweep, env=environment)
        deadline = time.time() + 10
        while not started_log.exists() and time.time() < deadline:
            time.sleep(0.01)
        latency = float(started_log.read_text().split()[0]) - t0 if started_log.exists() else float("inf")
        print(f"  event written -> spark-submit started: {latency:.3f} s + the cron period "
              f"(target < 1 s; Oozie: 60 s input polls, 300 s materialization; Dagster sensors: 30 s)")
        ok = all([report("trigger_bench", "sweep, nothing due", nothing, 0.5, unit="s"),
                  report("trigger_bench", "sweep / find", ratio, 3),
                  report("trigger_bench", "event -> spark-submit", latency, 1, unit="s")]) and started == PROCESSES
        print(f"  result: {'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def in_process_sweep(repo: Path, ledger: Ledger, scratch: Path) -> float:
    """The sweep's own work, the interpreter started and the config repo loaded (best of 5)."""
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.orchestration.triggers.launch import Launcher
    from toolkit.orchestration.triggers.sweep import run_sweep

    config = ConfigRepo.load(repo)
    launcher = Launcher(str(repo), "primary", [], scratch / "logs", "/bin/false")
    times = []
    for _ in range(5):
        began = time.perf_counter()
        report = run_sweep(config, "primary", ledger, launcher)
        times.append(time.perf_counter() - began)
        assert not report.started, report
    return min(times)


if __name__ == "__main__":
    sys.exit(main())
