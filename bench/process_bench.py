"""Benchmark of the process runner (issues 6, 41 and 69).

1. The template's hourly workflow (workflows/hourly_clicks_summary.py) for one instance, run by
   `spark-submit entrypoints/process.py` beside the same workflow run by a bare `spark-submit` of a
   two-line driver with its input and output paths written in (no resolution, ledger, lock or publish).
   The runner is measured twice: with the template's output feed as it is, with a Great Expectations gate, and
   with its `quality:` line removed. The gated runner is compared with what a user would write without the
   toolkit: the bare driver followed by Great Expectations' own validation of the same suite against the same
   Spark frame of the output (no ledger, lock or report). Rounds alternate the four; the medians are compared.
   Targets: without a gate, the overhead is under 15% of the bare run and under 2 s; with one, the runner takes
   at most 1.15x of the bare script with its validation (Great Expectations' import and the JVM's start share two
   cores in both, so that cost is the library's, not the gate's).
2. A process reading a 720-instance input window (a month of hourly clicks): the time process.py spends
   resolving the window and checking every instance's availability (and fingerprinting it), from its status
   line (`resolve_seconds`). Target: under 1 s.
`--quick` (part of `make bench-quick`): the bare run and the runner without a gate only, median of 3 rounds.
"""

from __future__ import annotations

import argparse
import json
import os
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
from toolkit.core.entities.repo import ConfigRepo  # noqa: E402

SPARK_SUBMIT = Path(str(__import__("pyspark").__file__)).parent / "bin" / "spark-submit"
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

# The bare driver, then Great Expectations as its documentation has a user validate a Spark frame (set up as
# toolkit/services/quality/expectations.py does): arguments 4 to 6 are the output's format, its columns and the suite
# file.
BARE_GATED_DRIVER = BARE_DRIVER + '''
import json, os
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
import great_expectations as gx
from great_expectations.core import ExpectationSuite
from great_expectations.data_context.types.base import (
    DataContextConfig, InMemoryStoreBackendDefaults, ProgressBarsConfig)
from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

frame = spark.read.format(sys.argv[4]).schema(sys.argv[5]).load(sys.argv[2])
context = gx.get_context(mode="ephemeral", project_config=DataContextConfig(
    store_backend_defaults=InMemoryStoreBackendDefaults(), analytics_enabled=False,
    progress_bars=ProgressBarsConfig(globally=False)))
batch = (context.data_sources.add_spark(name="bare", persist=False).add_dataframe_asset(name="summary")
         .add_batch_definition_whole_dataframe("whole").get_batch(batch_parameters={"dataframe": frame}))
with open(sys.argv[6]) as file:
    expectations = json.load(file)["expectations"]
suite = ExpectationSuite(name="bare")
for expectation in expectations:
    suite.add_expectation(ExpectationConfiguration(type=expectation["type"], kwargs=expectation["kwargs"])
                          .to_domain_obj())
result = batch.validate(suite, result_format={"result_format": "BASIC", "partial_unexpected_count": 0})
held = sum(1 for item in result.results if item.success)
print(f"bare validation: {held}/{len(expectations)} expectations held")
sys.exit(0 if result.success and held == len(expectations) == len(result.results) else 1)
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


def gate_arguments(repo: Path) -> tuple[list[str], str]:
    """BARE_GATED_DRIVER's arguments after its paths: the output's format, its declared columns and the suite of
    its feed's gate, read as the toolkit's gate reads them (toolkit/services/quality/frames.py); and the line the driver
    prints when every expectation held."""
    feed = ConfigRepo.load(repo).feed("clicks-hourly-summary")
    assert feed.quality is not None and feed.storage_format in ("json", "csv"), "the gate reads it another way"
    suite = repo / feed.quality.suite
    count = len(json.loads(suite.read_text())["expectations"])
    columns = ", ".join(f"`{column.name}` {column.type}" for column in feed.columns)
    return [feed.storage_format, columns, str(suite)], f"bare validation: {count}/{count} expectations held"


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
        driver, gated_driver = scratch / "bare_driver.py", scratch / "bare_gated_driver.py"
        driver.write_text(BARE_DRIVER)
        gated_driver.write_text(BARE_GATED_DRIVER)
        workflow = repo / "workflows" / "hourly_clicks_summary.py"
        window = ",".join(inputs[-3:])
        gate_args, held = gate_arguments(repo)
        gated, ungated, bare, bare_gated = [], [], [], []
        one = ("hourly-clicks-summary", "--time", f"{T:%Y-%m-%dT%H:%MZ}", "--force")
        for k in range(count):
            bare.append(submit(str(driver), str(workflow), f"file://{scratch / f'bare-{k}'}", window)[0])
            ungated.append(process(plain, *one)[0])
            if not quick:
                gated.append(process(repo, *one)[0])
                seconds, stdout, _ = submit(str(gated_driver), str(workflow), f"file://{scratch / f'bare-gated-{k}'}",
                                            window, *gate_args)
                assert held in stdout, stdout[-3000:]
                bare_gated.append(seconds)
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
        gated_median, bare_gated_median = statistics.median(gated), statistics.median(bare_gated)
        _, stdout, _ = process(repo, "monthly-window", "--time", f"{T:%Y-%m-%dT%H:%MZ}")
        status = json.loads(stdout.strip().splitlines()[-1])
        resolve = float(status["resolve_seconds"])
        print(f"  bare, then GE's own validation:       {bare_gated_median:6.2f} s   (rounds: {rounds(bare_gated)})")
        print(f"  process.py, the template's gate:      {gated_median:6.2f} s   (rounds: {rounds(gated)})")
        gate_ok = report("process_bench", "runner with the gate / bare with GE validation",
                         gated_median / bare_gated_median, 1.15)
        print(f"  the gate costs the runner {gated_median - ungated_median:+.2f} s, Great Expectations the bare "
              f"script {bare_gated_median - bare_median:+.2f} s; ratio {gated_median / bare_gated_median:.2f}x   "
              f"(target: <= 1.15x of the bare script with its validation): {'PASS' if gate_ok else 'FAIL'}")
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
