"""A generated config repo of many pipelines, for the graph's benchmark and its browser test: entity counts
are what a large platform has, and the shape is a real one (chains of processes, raw feeds read by many,
replication between clusters), so layout time and label crowding are measured on a fair case.

Cluster k holds two raw feeds (written from outside, replicated to cluster k+1) and two chains of processes:
process p reads a raw feed of its cluster and, after the first two of its cluster, the output of the process
two before it on that cluster. Every cluster is a `file://` folder under `root`, so its ledger can be read.
"""

from __future__ import annotations

from pathlib import Path

CLUSTER = """\
kind: cluster
name: {name}
interfaces:
  readonly: {{endpoint: "file://{root}/{name}", version: "3.4"}}
  write: {{endpoint: "file://{root}/{name}", version: "3.4"}}
  execute: {{endpoint: "spark://127.0.0.1:7077", version: "4.0"}}
  workflow: {{endpoint: "cron://localhost", version: "1.0"}}
locations: {{staging: /toolkit/staging, temp: /toolkit/temp, working: /toolkit/working}}
"""

FEED = """\
kind: feed
name: {name}
frequency: hours(1)
clusters:
{clusters}locations:
  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""

FEED_CLUSTER = """\
  - name: {name}
    type: {type}
    validity: {{start: "2026-01-01T00:00Z", end: "2099-12-31T00:00Z"}}
    retention: {{limit: days(30), action: delete}}
"""

PROCESS = """\
kind: process
name: {name}
clusters:
  - name: {cluster}
    validity: {{start: "2026-01-01T00:00Z", end: "2099-12-31T00:00Z"}}
frequency: hours(1)
inputs:
{inputs}outputs:
  - {{name: result, feed: {output}, instance: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/job.py}}
"""

INPUT = '  - {{name: {name}, feed: {feed}, start: "now(0,0)", end: "now(0,0)"}}\n'

# Words that give labels of different widths, as real names have.
DOMAINS = ("orders", "clickstream", "payments", "ad-impressions", "users", "inventory", "sessions", "search")


def cluster_name(k: int) -> str:
    return f"dc-{k:02d}"


def raw_feed_name(r: int) -> str:
    return f"{DOMAINS[r % len(DOMAINS)]}-raw-{r:02d}"


def process_name(p: int) -> str:
    return f"{DOMAINS[p % len(DOMAINS)]}-step-{p:03d}"


def output_name(p: int) -> str:
    return f"{DOMAINS[p % len(DOMAINS)]}-out-{p:03d}"


def write_pipelines_repo(repo: Path, root: Path, clusters: int = 10, processes: int = 235) -> int:
    """Write the repo into `repo` (created) with cluster roots under `root`; the number of entities written:
    `clusters` clusters, two raw feeds per cluster, `processes` processes and one output feed each."""
    for folder in ("clusters", "feeds", "processes", "workflows"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
    (repo / "workflows" / "job.py").write_text("def run(spark, ctx):\n    pass\n")
    for k in range(clusters):
        (repo / "clusters" / f"{cluster_name(k)}.yaml").write_text(CLUSTER.format(name=cluster_name(k), root=root))
    for r in range(2 * clusters):
        home, target = cluster_name(r // 2), cluster_name((r // 2 + 1) % clusters)
        placed = FEED_CLUSTER.format(name=home, type="source") + FEED_CLUSTER.format(name=target, type="target")
        _write_feed(repo, raw_feed_name(r), placed)
    for p in range(processes):
        k, step = p % clusters, p // clusters
        inputs = INPUT.format(name="raw", feed=raw_feed_name(2 * k + step % 2))
        if step >= 2:
            inputs += INPUT.format(name="previous", feed=output_name(p - 2 * clusters))
        (repo / "processes" / f"{process_name(p)}.yaml").write_text(
            PROCESS.format(name=process_name(p), cluster=cluster_name(k), inputs=inputs, output=output_name(p)))
        _write_feed(repo, output_name(p), FEED_CLUSTER.format(name=cluster_name(k), type="source"))
    return clusters + 2 * clusters + 2 * processes


def _write_feed(repo: Path, name: str, clusters: str) -> None:
    (repo / "feeds" / f"{name}.yaml").write_text(FEED.format(name=name, clusters=clusters))
