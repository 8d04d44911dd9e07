"""Copy this config repo and change it to show data-aware triggering (`make demo` uses it): `primary` gets a
root of its own (so its ledger holds only this demo's events), `hourly-clicks-summary` gets `trigger: data` (an
instance consumer of `clicks`), and a batch consumer `summary-row-counts` (no frequency) counts the rows of each
new summary instance into the feed of the same name. The sweep's runs use one local core (the cluster property
`trigger.submit-args`), so that the demo runs beside other work on a small machine.

    python demo/trigger_repo.py --to /tmp/feed-toolkit-demo/trigger-repo --root /tmp/feed-toolkit-demo/trigger-primary

The root is emptied: every run of the demo starts from no data and an empty ledger.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[1]
TEMPLATE_ROOT = "file:///tmp/feed-toolkit-demo/primary"
SUBMIT_ARGS = "--master local[1] --conf spark.ui.enabled=false"

COUNTS_FEED = """kind: feed
name: summary-row-counts
description: Per batch of new hourly summaries, the rows of each summary instance (JSON lines).
tags:
  owner: web-analytics
groups: [web]
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
clusters:
  - name: primary
    type: source
    validity:
      start: 2026-01-01T00:00Z
      end: 2099-12-31T00:00Z
    retention:
      limit: days(30)
      action: delete
locations:
  data: /data/summary-row-counts/${YEAR}/${MONTH}/${DAY}/${HOUR}
ACL:
  owner: etl
  group: analytics
"""

COUNTS_PROCESS = """kind: process
name: summary-row-counts
description: Each run counts the rows of the hourly summaries published since the last run (a batch consumer).
tags:
  owner: web-analytics
pipelines: [clicks]
clusters:
  - name: primary
    validity:
      start: 2026-01-01T00:00Z
      end: 2099-12-31T00:00Z
# No frequency: started by `toolkit trigger` when summaries are published; each run consumes the new ones.
trigger: data
inputs:
  - name: summaries
    feed: clicks-hourly-summary
# The output instance is the newest consumed summary's hour.
outputs:
  - name: counts
    feed: summary-row-counts
workflow:
  name: summary-row-counts
  engine: pyspark
  path: workflows/summary_row_counts.py
retry:
  policy: periodic
  delay: minutes(1)
  attempts: 2
"""

COUNTS_WORKFLOW = '''"""Per batch: one JSON line per consumed summary instance, with its hour and its number of rows.

`ctx.inputs["summaries"]` lists exactly the batch's new instances (oldest first) and `ctx.batch` their times.
"""

from pyspark.sql import SparkSession


def run(spark: SparkSession, ctx) -> None:
    rows = [(ctx.batch.seq, item.time.strftime("%Y-%m-%dT%H:%MZ"), spark.read.json(item.location).count())
            for item in ctx.batch.instances["summaries"]]
    counts = spark.createDataFrame(rows, "batch int, summary string, rows long")
    counts.coalesce(1).write.mode("overwrite").json(ctx.outputs["counts"])
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--to", type=Path, required=True, help="The folder of the copy (replaced).")
    parser.add_argument("--root", type=Path, required=True,
                        help="primary's root folder in the copy (emptied: its data and its ledger).")
    args = parser.parse_args()
    write_repo(args.to, args.root.resolve())
    print(f"wrote {args.to}: primary at file://{args.root.resolve()} (emptied), hourly-clicks-summary on "
          "trigger: data, batch consumer summary-row-counts")


def write_repo(to: Path, root: Path) -> None:
    """Write the variant repo at `to` (replaced) with primary's root at `root` (emptied)."""
    cluster = copy_template(to, root)
    replace_exactly(cluster, "properties:\n", f"properties:\n  trigger.submit-args: \"{SUBMIT_ARGS}\"\n")
    replace_exactly(to / "processes" / "hourly-clicks-summary.yaml", "order: FIFO\n",
             "order: FIFO\n# Started by `toolkit trigger` as soon as its clicks window is published.\ntrigger: data\n")
    (to / "feeds" / "summary-row-counts.yaml").write_text(COUNTS_FEED)
    (to / "processes" / "summary-row-counts.yaml").write_text(COUNTS_PROCESS)
    (to / "workflows" / "summary_row_counts.py").write_text(COUNTS_WORKFLOW)


def copy_template(to: Path, root: Path) -> Path:
    """Copy this repo to `to` (replaced) with primary's root at `root` (emptied); primary's file in the copy."""
    shutil.rmtree(to, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copytree(TEMPLATE, to, ignore=shutil.ignore_patterns("demo", "README.md", ".schemas"))
    cluster = to / "clusters" / "primary.yaml"
    replace_exactly(cluster, TEMPLATE_ROOT, f"file://{root}", count=2)
    return cluster


def replace_exactly(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace exactly `count` occurrences, so that a change of the template fails here instead of silently."""
    text = path.read_text()
    if text.count(old) != count:
        raise SystemExit(f"{path}: expected {count} occurrence(s) of {old!r}, found {text.count(old)}: the template "
                         "changed; update the demo script (config_repo_template/demo/) that edits it.")
    path.write_text(text.replace(old, new))


if __name__ == "__main__":
    main()
