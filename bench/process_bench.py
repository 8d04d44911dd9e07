"""Benchmark of the process runner (issues 6 and 41).

1. The template's hourly workflow (workflows/hourly_clicks_summary.py) for one instance, run by
   `spark-submit entrypoints/process.py` beside the same workflow run by a bare `spark-submit` of a
   two-line driver with its input and output paths written in (no resolution, ledger, lock or publish).
   The runner is measured twice: with the template's output feed as it is, with a Great Expectations gate, and
   with its `quality:` line removed. Rounds alternate the three; the medians are compared. Targets: without a
   gate, the overhead is under 15% of the bare run and under 2 s; with one, the gate costs no more than a warm
   validation of the same suite plus 1 s (the warm validation is the second instance's of a two-instance window,
   read from the runner's `quality:` line).
2. A process reading a 720-instance input window (a month of hourly clicks): the time process.py spends
   resolving the window and checking every instance's availability (and fingerprinting it), from its status
   line (`resolve_seconds`). Target: under 1 s.
`--quick` (part of `make bench-quick`): the bare run and the runner without a gate only, median of 3 rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402

SPARK_SUBMIT = Path(__import__("pyspark").__file__).parent / "bin" / "spark-submit"
ROUNDS = 5
T = datetime(2026, 2, 1, 0, tzinfo=timezone.utc)

BARE_DRIVER = '''
import runpy, sys
from types import SimpleNamespace
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("bare-hourly-clicks-summary").getOrCreate()
spark.sparkContext.setLogLevel("WARN")
workflow = runpy.run_path(sys.argv[1])
ctx = SimpleNamespace(inputs={"clicks": sys.argv[3].split(",")}, outputs={"summary": sys.argv[2]})
workflow["run"](spark, ctx)
'''


def write_clicks(root: Path, first: datetime, hours: int) -> list[str]:
    paths = []
    for k in range(hours):
        hour = first + timedelta(hours=k)
        folder = root / "data" / "clicks" / f"{hour:%Y/%m/%d/%H}"
        folder.mkdir(parents=True, exist_ok=True)
        rows = [{"ts": hour.strftime("%Y-%m-%dT%H:%M:00Z"), "user": f"u{n % 17}", "page": f"/p{n % 5}"}
                for n in range(200)]
        (folder / "part-00000.json").write_text("".join(json.dumps(row) + "\n" for row in rows))
        (folder / "_SUCCESS").write_text("")
        paths.append(f"file://{folder}")
    return paths


def make_repo(scratch: Path, root: Path, name: str = "conf", gate: bool = True) -> Path:
    repo = scratch / name
    shutil.copytree(ROOT / "config_repo_template", repo)
    cluster = repo / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace("file:///tmp/feed-toolkit-demo/primary", f"file://{root}"))
    text = (repo / "processes" / "hourly-clicks-summary.yaml").read_text()
    month = text.replace("name: hourly-clicks-summary", "name: monthly-window", 1).replace(
        "start: now(-2,0)", "start: now(-719,0)")
    (repo / "processes" / "monthly-window.yaml").write_text(month)
    if not gate:
        summary = repo / "feeds" / "clicks-hourly-summary.yaml"
        kept = [line for line in summary.read_text().splitlines(keepends=True) if not line.startswith("quality:")]
        assert len(kept) < len(summary.read_text().splitlines()), "the template's summary feed has no gate"
        summary.write_text("".join(kept))
    return repo


def submit(*args: str) -> tuple[float, str, str]:
    """Seconds, stdout and stderr of a spark-submit; exit on failure."""
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    command = [str(SPARK_SUBMIT), "--master", "local[2]", "--conf", "spark.ui.enabled=false", *args]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"process_bench: {' '.join(command)} failed ({done.returncode}):\n{done.stdout[-3000:]}"
                         f"{done.stderr[-3000:]}")
    return elapsed, done.stdout, done.stderr


def process(repo: Path, name: str, *args: str) -> tuple[float, str, str]:
    return submit(str(ROOT / "entrypoints" / "process.py"), "--repo", str(repo), "--process", name, "--cluster",
                  "primary", "--now", f"{T:%Y-%m-%dT%H:%MZ}", *args)


def warm_validation(repo: Path) -> float:
    """Seconds of the second validation of a two-instance window: the gate's own time, imports and set-up paid."""
    _, _, stderr = process(repo, "hourly-clicks-summary", "--from", f"{T - timedelta(hours=1):%Y-%m-%dT%H:%MZ}",
                           "--to", f"{T:%Y-%m-%dT%H:%MZ}", "--force")
    found = re.findall(r"^quality: .* held in ([0-9.]+) s$", stderr, re.MULTILINE)
    assert len(found) == 2, stderr[-3000:]
    return float(found[1])


def rounds(values: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="The runner without a gate only, median of 3 rounds.")
    quick = parser.parse_args().quick
    count = 3 if quick else ROUNDS
    scratch = Path(tempfile.mkdtemp(prefix="process_bench_"))
    try:
        root = scratch / "primary"
        repo, plain = make_repo(scratch, root), make_repo(scratch, root, "conf-no-gate", gate=False)
        inputs = write_clicks(root, T - timedelta(hours=719), 720)
        driver = scratch / "bare_driver.py"
        driver.write_text(BARE_DRIVER)
        workflow = repo / "workflows" / "hourly_clicks_summary.py"
        gated, ungated, bare = [], [], []
        one = ("hourly-clicks-summary", "--time", f"{T:%Y-%m-%dT%H:%MZ}", "--force")
        for k in range(count):
            out = scratch / f"bare-{k}"
            bare.append(submit(str(driver), str(workflow), f"file://{out}", ",".join(inputs[-3:]))[0])
            ungated.append(process(plain, *one)[0])
            if not quick:
                gated.append(process(repo, *one)[0])
        bare_median, ungated_median = statistics.median(bare), statistics.median(ungated)
        overhead = ungated_median - bare_median
        print(f"process_bench: the template's hourly workflow, one instance (3 input hours), median of {count} "
              "alternating rounds")
        print(f"  bare spark-submit, paths written in:  {bare_median:6.2f} s   (rounds: {rounds(bare)})")
        print(f"  process.py, no quality gate:          {ungated_median:6.2f} s   (rounds: {rounds(ungated)})")
        plain_ok = all([report("process_bench", "runner without a gate / bare", ungated_median / bare_median, 1.15),
                        report("process_bench", "runner without a gate - bare", overhead, 2.0, unit="s")])
        print(f"  overhead without a gate: {overhead:+.2f} s = {overhead / bare_median:+.1%} of the bare run; ratio "
              f"{ungated_median / bare_median:.2f}x   (targets: < 15% and < 2 s): {'PASS' if plain_ok else 'FAIL'}")
        if quick:
            return 0 if plain_ok else 1
        gated_median = statistics.median(gated)
        gate = gated_median - ungated_median
        warm = warm_validation(repo)
        _, stdout, _ = process(repo, "monthly-window", "--time", f"{T:%Y-%m-%dT%H:%MZ}")
        status = json.loads(stdout.strip().splitlines()[-1])
        resolve = float(status["resolve_seconds"])
        print(f"  process.py, the template's gate:      {gated_median:6.2f} s   (rounds: {rounds(gated)})")
        gate_ok = report("process_bench", "gate's cost / (warm validation + 1 s)", gate / (warm + 1.0), 1.0)
        print(f"  the gate's cost: {gate:+.2f} s beside a warm validation of {warm:.2f} s   (target: <= the warm "
              f"validation + 1 s): {'PASS' if gate_ok else 'FAIL'}")
        print(f"  a 720-instance input window (a month of hourly clicks): resolved and checked in {resolve:.3f} s "
              f"of a {float(status['elapsed_seconds']):.2f} s run   (target: < 1 s)")
        passed = all([plain_ok, gate_ok, report("process_bench", "720-instance window resolved", resolve, 1.0,
                                                unit="s")])
        print(f"  result: {'PASS' if passed else 'FAIL'}")
        return 0 if passed else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
