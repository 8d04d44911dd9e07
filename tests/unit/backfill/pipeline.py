"""A pipeline of two processes and a replication for backfills: `raw` (hourly files an outside producer writes on
primary) -> `stage-one` -> `mid` (replicated into backup) -> `stage-two` (two hours of mid) -> `out`. Both
workflows are pyspark files that copy their input rows with a column saying which step wrote them."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
VALID = "{start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}"


def _feed(name: str, *, replicated: bool = False) -> str:
    target = f"""
  - name: backup
    type: target
    validity: {VALID}
    locations:
      data: /replica/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}""" if replicated else ""
    return f"""kind: feed
name: {name}
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
clusters:
  - name: primary
    type: source
    validity: {VALID}{target}
locations:
  data: /data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
"""


def _process(name: str, start: str, source: str, window: tuple[str, str], output: str) -> str:
    return f"""kind: process
name: {name}
clusters:
  - name: primary
    validity: {{start: {start}, end: 2099-12-31T00:00Z}}
frequency: hours(1)
timezone: UTC
parallel: 2
timeout: hours(1)
inputs:
  - {{name: rows, feed: {source}, start: "{window[0]}", end: "{window[1]}"}}
outputs:
  - {{name: rows, feed: {output}, instance: "now(0,0)"}}
workflow: {{engine: pyspark, path: workflows/copy_rows.py}}
retry: {{policy: periodic, delay: minutes(1), attempts: 1}}
"""


WORKFLOW = '''from pyspark.sql import functions as F


def run(spark, ctx):
    rows = spark.read.json(list(ctx.inputs["rows"]))
    rows.withColumn(ctx.process.replace("-", "_"), F.lit(1)).coalesce(1) \\
        .write.mode("overwrite").json(ctx.outputs["rows"])
'''


def make_pipeline(tmp: Path, first_consumer: datetime) -> tuple[Path, Path, Path]:
    """(the repo, primary's root, backup's root); `stage-two` starts at `first_consumer`."""
    repo = tmp / "conf"
    (repo / "feeds").mkdir(parents=True)
    (repo / "processes").mkdir()
    (repo / "workflows").mkdir()
    shutil.copytree(TEMPLATE / "clusters", repo / "clusters")
    for name in ("primary", "backup"):
        cluster = repo / "clusters" / f"{name}.yaml"
        cluster.write_text(cluster.read_text().replace(f"file:///tmp/feed-toolkit-demo/{name}", f"file://{tmp / name}"))
        (tmp / name).mkdir()
    for name, replicated in (("raw", False), ("mid", True), ("out", False)):
        (repo / "feeds" / f"{name}.yaml").write_text(_feed(name, replicated=replicated))
    (repo / "processes" / "stage-one.yaml").write_text(
        _process("stage-one", "2026-01-01T00:00Z", "raw", ("now(0,0)", "now(0,0)"), "mid"))
    (repo / "processes" / "stage-two.yaml").write_text(
        _process("stage-two", f"{first_consumer:%Y-%m-%dT%H:%MZ}", "mid", ("now(-1,0)", "now(0,0)"), "out"))
    (repo / "workflows" / "copy_rows.py").write_text(WORKFLOW)
    return repo, tmp / "primary", tmp / "backup"


def write_raw(root: Path, first: datetime, hours: int) -> None:
    """Two rows per hour, flagged complete."""
    for k in range(hours):
        hour = first + timedelta(hours=k)
        folder = root / "data" / "raw" / f"{hour:%Y/%m/%d/%H}"
        folder.mkdir(parents=True)
        rows = [{"hour": f"{hour:%H}", "n": n} for n in range(2)]
        (folder / "part-00000.json").write_text("".join(json.dumps(row) + "\n" for row in rows))
        (folder / "_SUCCESS").write_text("")


def rows_of(folder: Path) -> list[dict[str, object]]:
    lines = [line for part in sorted(folder.glob("part-*")) for line in part.read_text().splitlines()]
    return sorted((json.loads(line) for line in lines),
                  key=lambda row: (str(row["hour"]), int(str(row["n"]))))
