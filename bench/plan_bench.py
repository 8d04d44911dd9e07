"""Benchmark of `toolkit plan` (issue 39): a config repo of 1,000 hourly feeds and 100 processes on one file://
cluster, in git, of which 10 feeds have their retention shortened from days(400) to days(30) in the working tree,
and a year of hourly instances (8,760 folders) of each of those 10 on the cluster. `toolkit plan --base HEAD`
(whole process: the base extracted from git, both sides loaded, the 10 feeds' folders walked by retention's planner
and their evicted instances sized, the schedule planned twice) beside `toolkit lint` of the same repo plus `find`
listing those 10 feeds' folders: what the plan must at least do. Targets: under 3 s, and within 3x of lint plus
the listing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.figures import report  # noqa: E402

FEEDS, PROCESSES, CHANGED, HOURS = 1000, 100, 10, 8760
READ = (FEEDS - PROCESSES) // PROCESSES  # each process reads 9 feeds and writes one: every feed is used
NOW = datetime(2026, 11, 26, tzinfo=timezone.utc)
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

CLUSTER = """\
kind: cluster
name: primary
colo: colo-1
interfaces:
  readonly: {{endpoint: "file://{root}", version: "3.3"}}
  write: {{endpoint: "file://{root}", version: "3.3"}}
  execute: {{endpoint: "local", version: "3.3"}}
locations:
  staging: /staging
  temp: /tmp
  working: /working
"""

FEED = """\
kind: feed
name: feed-{i}
description: Generated feed {i}.
tags: {{owner: team-{team}}}
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
clusters:
  - name: primary
    {source}validity: {{start: "2025-11-01T00:00Z", end: "2099-12-31T00:00Z"}}
    retention: {{limit: days(400), action: delete}}
locations:
  data: /data/feed-{i}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""

PROCESS = """\
kind: process
name: process-{p}
clusters:
  - name: primary
    validity: {{start: "2026-01-01T00:00Z", end: "2099-12-31T00:00Z"}}
frequency: hours(1)
timezone: UTC
inputs:
{inputs}outputs:
  - {{name: result, feed: feed-{output}, instance: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/job.py}}
"""


def generate(scratch: Path) -> tuple[Path, Path]:
    """(the repo, committed, with CHANGED feeds edited in its working tree; the cluster's root with their data)."""
    repo, root = scratch / "conf", scratch / "primary"
    for kind in ("clusters", "feeds", "processes", "workflows"):
        (repo / kind).mkdir(parents=True)
    (repo / "workflows" / "job.py").write_text("def run(spark, ctx):\n    pass\n")
    (repo / "clusters" / "primary.yaml").write_text(CLUSTER.format(root=root))
    for i in range(FEEDS):
        source = "type: source\n    " if i < FEEDS - PROCESSES else ""  # the processes' inputs come from outside
        (repo / "feeds" / f"feed-{i}.yaml").write_text(FEED.format(i=i, team=i % 13, source=source))
    for p in range(PROCESSES):
        inputs = "".join(f'  - {{name: in-{i}, feed: feed-{i}, start: "now(0,0)", end: "now(0,0)"}}\n'
                         for i in range(p * READ, (p + 1) * READ))
        (repo / "processes" / f"process-{p}.yaml").write_text(PROCESS.format(p=p, inputs=inputs,
                                                                            output=FEEDS - PROCESSES + p))
    first = NOW - timedelta(hours=HOURS)
    for i in range(CHANGED):
        for k in range(HOURS):
            folder = root / f"data/feed-{i}" / f"{first + timedelta(hours=k):%Y/%m/%d/%H}"
            folder.mkdir(parents=True)
            (folder / "part-00000").write_bytes(b"x" * 64)
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", "-C", str(repo), *argv], check=True, env={**os.environ, **GIT_ENV})
    for i in range(CHANGED):
        feed = repo / "feeds" / f"feed-{i}.yaml"
        feed.write_text(feed.read_text().replace("days(400)", "days(30)"))
    return repo, root


def timed(command: list[str], expect: int = 0) -> float:
    """Best of three wall-clock runs of a whole process."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
        best = min(best, time.perf_counter() - began)
        if result.returncode != expect:
            raise SystemExit(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-2000:]}{result.stderr}")
    return best


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        began = time.perf_counter()
        repo, root = generate(Path(scratch))
        made = time.perf_counter() - began
        plan = [sys.executable, "-m", "toolkit", "plan", "--repo", str(repo), "--base", "HEAD", "--now",
                f"{NOW:%Y-%m-%dT%H:%MZ}", "--format", "json", "--limit", "0"]
        done = subprocess.run(plan, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
        counted = done.stdout.count('"destructive": true')
        if done.returncode != 1 or counted != CHANGED:
            raise SystemExit(f"the plan did not name {CHANGED} destructive changes (exit {done.returncode}):\n"
                             f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
        planned = timed(plan, expect=1)
        lint = timed([sys.executable, "-m", "toolkit", "lint", str(repo)])
        listing = timed(["find", *(str(root / f"data/feed-{i}") for i in range(CHANGED))])
    together = lint + listing
    ratio = planned / together
    print(f"plan_bench: {FEEDS} feeds and {PROCESSES} processes, {CHANGED} feeds with retention days(400) -> days(30) "
          f"and {HOURS:,} hourly instances each on a file:// cluster (made in {made:.0f} s); best of 3, whole "
          "processes")
    print(f"  toolkit plan --base HEAD:        {planned:.2f} s")
    print(f"  toolkit lint:                    {lint:.2f} s")
    print(f"  find of the {CHANGED} feeds' folders: {listing:.2f} s")
    print(f"  ratio plan / (lint + find): {ratio:.2f}x   (targets: plan < 3 s, ratio <= 3x)")
    ok = all([report("plan_bench", "plan", planned, 3, unit="s"),
              report("plan_bench", "plan / (lint + find)", ratio, 3)])
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
