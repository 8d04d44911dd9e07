"""Benchmark of the linter: `toolkit lint` on a generated repo of 200 clusters, 1,500 feeds and 300
processes, as a whole process (interpreter start and imports included), beside a bare
`python -c "import yaml; ..."` that loads the same files with PyYAML's C loader (the fastest plain load).
Targets (issue 3): the whole lint under 3 s, and under 4x the bare YAML load.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.figures import report  # noqa: E402

CLUSTERS, FEEDS, PROCESSES = 200, 1500, 300
RAW_FEEDS = FEEDS - PROCESSES  # each process writes one feed; the others are written from outside

CLUSTER = """\
kind: cluster
name: cluster-{i}
colo: colo-{colo}
interfaces:
  readonly: {{endpoint: "hdfs://nn-{i}:50070", version: "3.3"}}
  write: {{endpoint: "hdfs://nn-{i}:8020", version: "3.3"}}
  execute: {{endpoint: "yarn://rm-{i}:8032", version: "3.3"}}
  workflow: {{endpoint: "cron://scheduler-{i}", version: "1.0"}}
  registry: {{endpoint: "thrift://metastore-{i}:9083", version: "3.1"}}
locations:
  staging: /apps/toolkit/staging
  temp: /tmp
  working: /apps/toolkit/working
properties:
  spark.sql.shuffle.partitions: "64"
"""

FEED = """\
kind: feed
name: feed-{i}
description: Generated feed {i}.
tags: {{owner: team-{team}}}
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
late-arrival: {{cut-off: hours(6)}}
clusters:
  - name: cluster-{cluster}
    {type}validity: {{start: "2025-12-01T00:00Z", end: "2099-12-31T00:00Z"}}
    retention: {{limit: days(90), action: delete}}
locations:
  data: /data/feed-{i}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
  stats: /stats/feed-{i}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""

PROCESS = """\
kind: process
name: process-{i}
clusters:
  - name: cluster-{cluster}
    validity: {{start: "2026-01-01T00:00Z", end: "2099-12-31T00:00Z"}}
frequency: hours(1)
timezone: UTC
parallel: 2
order: FIFO
timeout: hours(4)
inputs:
{inputs}outputs:
  - {{name: result, feed: feed-{output}, instance: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/job.py}}
retry: {{policy: periodic, delay: minutes(5), attempts: 3}}
"""


def generate_repo(root: Path) -> Path:
    """A clean repo: raw feeds are `type: source`; process p on cluster p % 200 reads the raw feeds of
    its cluster (shared among that cluster's processes) and writes feed RAW_FEEDS + p."""
    for folder in ("clusters", "feeds", "processes", "workflows"):
        (root / folder).mkdir(parents=True)
    (root / "workflows" / "job.py").write_text("def run(spark, ctx):\n    pass\n")
    for i in range(CLUSTERS):
        (root / "clusters" / f"cluster-{i}.yaml").write_text(CLUSTER.format(i=i, colo=i % 7))
    for i in range(FEEDS):
        raw = i < RAW_FEEDS
        cluster = i % CLUSTERS if raw else (i - RAW_FEEDS) % CLUSTERS
        text = FEED.format(i=i, team=i % 13, cluster=cluster, type="type: source\n    " if raw else "")
        (root / "feeds" / f"feed-{i}.yaml").write_text(text)
    for p in range(PROCESSES):
        cluster = p % CLUSTERS
        siblings = [q for q in range(PROCESSES) if q % CLUSTERS == cluster]
        raws = [i for i in range(cluster, RAW_FEEDS, CLUSTERS)]
        mine = raws[siblings.index(p)::len(siblings)]
        inputs = "".join(f'  - {{name: in-{i}, feed: feed-{i}, start: "now(-2,0)", end: "now(0,0)"}}\n' for i in mine)
        (root / "processes" / f"process-{p}.yaml").write_text(
            PROCESS.format(i=p, cluster=cluster, inputs=inputs, output=RAW_FEEDS + p))
    return root


BASELINE = (
    "import sys, pathlib, yaml\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).glob('*/*.yaml')):\n"
    "    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)\n"
)


def timed(command: list[str], expect: int = 0) -> float:
    """Best of three wall-clock runs of a whole process."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        best = min(best, time.perf_counter() - began)
        if result.returncode != expect:
            raise SystemExit(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-2000:]}{result.stderr}")
    return best


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        repo = generate_repo(Path(scratch) / "repo")
        lint = timed([sys.executable, "-m", "toolkit", "lint", str(repo)])
        bare = timed([sys.executable, "-c", BASELINE, str(repo)])
    ratio = lint / bare
    print(f"lint_bench: {CLUSTERS} clusters, {FEEDS} feeds, {PROCESSES} processes (best of 3, whole processes)")
    print(f"  toolkit lint:                 {lint:.2f} s")
    print(f"  bare YAML load (CSafeLoader): {bare:.2f} s")
    print(f"  ratio lint/bare: {ratio:.2f}x   (targets: lint < 3 s, ratio < 4x)")
    ok = all([report("lint_bench", "lint", lint, 3, unit="s"), report("lint_bench", "lint / bare load", ratio, 4)])
    print("  result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
