"""A batch consumer for the tests: `batch-rollup` reads the batches of `clicks` and `clicks-hourly-summary`
(condition all unless told) and writes `clicks-daily`. Its workflow appends one JSON line per batch to the
output instance as published before (so a replaced instance shows every batch it accumulated; a batch's own
line, found again after a kill, is dropped), fails while the file named by the property `fail-if` exists, and
holds while the file named by `hold-while` exists (after writing its staging output), so that a test can kill
it there."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from tests.integration.process_runner.process_repo import write_clicks
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger

NAME = "batch-rollup"

WORKFLOW = '''
import json, os, time

def run(spark, ctx):
    if os.path.exists(ctx.properties["fail-if"]):
        raise RuntimeError("asked to fail")
    before = ctx.batch.published["daily"]
    lines = [row.value for row in spark.read.text(before).collect()] if before else []
    lines = [line for line in lines if json.loads(line)["seq"] != ctx.batch.seq]  # a replay after a kill: idempotent
    lines.append(json.dumps({
        "seq": ctx.batch.seq, "run": ctx.run_id, "events": list(ctx.batch.event_ids),
        "nominal": ctx.nominal_time.strftime("%Y-%m-%dT%H:%MZ"),
        "inputs": {name: list(paths) for name, paths in ctx.inputs.items()},
        "times": {name: [i.time.strftime("%Y-%m-%dT%H:%MZ") for i in items]
                  for name, items in ctx.batch.instances.items()},
        "event_ids": {name: [i.event_id for i in items] for name, items in ctx.batch.instances.items()}},
        sort_keys=True))
    spark.createDataFrame([(line,) for line in lines], "value string").coalesce(1).write.text(ctx.outputs["daily"])
    deadline = time.monotonic() + 180
    while os.path.exists(ctx.properties["hold-while"]) and time.monotonic() < deadline:
        time.sleep(0.2)
'''


def write_batch_consumer(repo: Path, tmp: Path, trigger: str = "{on: data, condition: all}") -> str:
    (repo / "workflows" / "batch_rollup.py").write_text(WORKFLOW)
    (repo / "processes" / f"{NAME}.yaml").write_text(f"""\
kind: process
name: {NAME}
clusters:
  - name: primary
    validity: {{start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}}
trigger: {trigger}
inputs:
  - {{name: clicks, feed: clicks}}
  - {{name: summary, feed: clicks-hourly-summary}}
outputs:
  - {{name: daily, feed: clicks-daily}}
properties:
  fail-if: {tmp / "fail"}
  hold-while: {tmp / "hold"}
workflow:
  engine: pyspark
  path: workflows/batch_rollup.py
retry:
  policy: periodic
  delay: minutes(5)
  attempts: 2
""")
    return NAME


def publish(ledger: Ledger, root: Path, feed: str, t: datetime) -> str:
    """Write the instance (clicks, or a summary-shaped folder) with its flag and record its event: its id."""
    if feed == "clicks":
        write_clicks(root, t, 1)
    else:
        folder = root / "data" / feed / f"{t:%Y/%m/%d/%H}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "part-00000.json").write_text('{"page": "/", "clicks": 1}\n')
        (folder / "_SUCCESS").write_text("")
    event = ledger.record_publication(PublicationFacts(feed, "primary", t, producer="external", run_id="test",
                                                       location=location(root, feed, t), fingerprint=None))
    assert event is not None
    return event.event_id


def location(root: Path, feed: str, t: datetime) -> str:
    return f"file://{root}/data/{feed}/{t:%Y/%m/%d/%H}"


def stamp(t: datetime) -> str:
    return format_timestamp(t)
