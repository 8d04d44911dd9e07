"""Benchmark of a data-quality gate (issue 19): a 1-million-row instance checked against a 10-expectation suite
by the toolkit's gate (toolkit/services/quality/gate.py: Great Expectations' Spark DataFrame datasource in the run's own
SparkSession), beside writing that instance and beside one Spark aggregation computing the same facts, all in one
SparkSession (local[2]).

- Writing the output: 1 million rows (an id, a url with 2% nulls, an hour, a score, a user id) as parquet into a
  fresh folder, median of 3 (the gate checks the first).
- The gate cold: its first check in the process, including Great Expectations' import and context set-up, which
  is printed on its own (toolkit.services.quality.expectations.validator()'s first call, the import timed apart; its
  second call is free).
- The gate warm, median of 3 further checks of the same instance (a catch-up pays the set-up once), in rounds
  alternating with the baseline: one Spark aggregation (count, null counts, exact distinct counts of the id and
  the url, min and max, mean) over the same instance, read the same way, after a round of warm-up (the gate's is
  its cold check). Its facts are checked against the observed values Great Expectations reports. The same
  aggregation without its two distinct counts is printed beside it, to show what they cost (most of it: a window
  over the id is also the gate's dearest job).
Target (issue 19): the gate warm within 2.5x of the aggregation; the set-up paid once per process is shown.
Exit 1 when the target is missed (as the other benchmarks: `make bench` names it), 0 otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.figures import report  # noqa: E402

ROWS = 1_000_000
ROUNDS = 3
TARGET_RATIO = 2.5
T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
FEED = "visits-scored"
SUITE_PATH = f"quality/{FEED}.json"

FEED_YAML = f"""kind: feed
name: {FEED}
description: Scored page visits, one folder per hour (quality_bench's output).
frequency: hours(1)
timezone: UTC
availabilityFlag: _SUCCESS
clusters:
  - name: primary
    type: source
    validity:
      start: 2026-01-01T00:00Z
      end: 2099-12-31T00:00Z
locations:
  data: /data/{FEED}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}
columns:
  - {{name: id, type: bigint}}
  - {{name: url, type: string}}
  - {{name: hour, type: int}}
  - {{name: score, type: double}}
  - {{name: user_id, type: string}}
format: parquet
quality:
  suite: {SUITE_PATH}
  on-failure: block
"""

# Great Expectations' suite JSON, as `suite.to_json_dict()` writes it (ids and meta left out).
SUITE = {"name": f"{FEED}-checks", "expectations": [
    {"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 900_000, "max_value": 1_100_000}},
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "id"}},
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "url", "mostly": 0.95}},
    {"type": "expect_column_values_to_be_unique", "kwargs": {"column": "id"}},
    {"type": "expect_column_values_to_be_between", "kwargs": {"column": "hour", "min_value": 0, "max_value": 23}},
    {"type": "expect_column_values_to_be_between", "kwargs": {"column": "score", "min_value": 0, "max_value": 1}},
    {"type": "expect_column_max_to_be_between", "kwargs": {"column": "score", "min_value": 0.9, "max_value": 1}},
    {"type": "expect_column_mean_to_be_between", "kwargs": {"column": "score", "min_value": 0.45, "max_value": 0.55}},
    {"type": "expect_column_to_exist", "kwargs": {"column": "user_id"}},
    {"type": "expect_column_proportion_of_unique_values_to_be_between",
     "kwargs": {"column": "url", "min_value": 0.01, "max_value": 0.1}},
]}

EXPECTATIONS = len(SUITE["expectations"])

def make_repo(scratch: Path) -> Path:
    """The template config repo with the benchmark's feed and its suite file."""
    repo = scratch / "conf"
    shutil.copytree(ROOT / "config_repo_template", repo)
    cluster = repo / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace("file:///tmp/feed-toolkit-demo/primary",
                                                    f"file://{scratch / 'primary'}"))
    (repo / "feeds" / f"{FEED}.yaml").write_text(FEED_YAML)
    (repo / "quality").mkdir(exist_ok=True)  # beside the template's own suite
    (repo / SUITE_PATH).write_text(json.dumps(SUITE, indent=2) + "\n")
    return repo


def output(spark: Any) -> Any:
    """The 1-million-row output: realistic types, 2% of urls null, 40,000 distinct urls, 100,000 users."""
    from pyspark.sql import functions as F

    page = F.pmod(F.xxhash64("id"), F.lit(40_000))
    return spark.range(ROWS).select(
        F.col("id"),
        F.when(F.col("id") % 50 == 7, None).otherwise(F.concat(F.lit("https://shop.example.com/p/"),
                                                               page.cast("string"))).alias("url"),
        (F.col("id") % 24).cast("int").alias("hour"),
        F.rand(seed=19).alias("score"),
        F.concat(F.lit("u"), F.pmod(F.col("id") * 7919, F.lit(100_000)).cast("string")).alias("user_id"))


def aggregate(spark: Any, location: str, distinct: bool = True) -> dict[str, Any]:
    """The suite's facts in one Spark aggregation over the instance, read as the gate reads it: exact distinct
    counts, as uniqueness needs (and as Great Expectations computes them); without them when not `distinct`."""
    from pyspark.sql import functions as F

    frame = spark.read.parquet(location)
    assert "user_id" in frame.columns
    counts = [F.count_distinct("id").alias("distinct_ids"), F.count_distinct("url").alias("distinct_urls")]
    row = frame.agg(
        F.count(F.lit(1)).alias("rows"), F.count("id").alias("ids"), F.count("url").alias("urls"),
        *(counts if distinct else []),
        F.min("hour").alias("min_hour"), F.max("hour").alias("max_hour"), F.min("score").alias("min_score"),
        F.max("score").alias("max_score"), F.avg("score").alias("mean_score")).collect()[0]
    return row.asDict()


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    began = time.perf_counter()
    value = function()
    return time.perf_counter() - began, value


def rounds(values: list[float]) -> str:
    return "rounds: " + ", ".join(f"{value:.2f}" for value in values)


def main() -> int:
    from pyspark.sql import SparkSession

    import toolkit.services.quality.expectations as expectations
    from toolkit.core.entities.model import quality_gates
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.core.storage.jvm_classes import jar_path
    from toolkit.services.quality.frames import file_instance
    from toolkit.services.quality.gate import QualityGate

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    scratch = Path(tempfile.mkdtemp(prefix="quality_bench_"))
    spark = (SparkSession.builder.master("local[2]").appName("quality_bench").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.jars", jar_path())
             .config("spark.driver.host", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        repo_root = make_repo(scratch)
        feed = ConfigRepo.load(repo_root).feed(FEED)
        gates = quality_gates(feed)
        fs = HadoopFileSystem(spark)
        output(spark).limit(1000).write.parquet(str(scratch / "warm-up"))  # Spark's first job, the JIT
        folders = [f"file://{scratch}/primary/data/{FEED}/{k}" for k in range(ROUNDS)]
        def writing(folder: str) -> Callable[[], Any]:
            return lambda: output(spark).write.parquet(folder)

        writes = [timed(writing(folder))[0] for folder in folders]
        location = folders[0]

        setups: list[float] = []
        imports: list[float] = []
        original = expectations.validator

        def timed_validator() -> expectations.Validator:
            """validator(), timed: its first call imports Great Expectations (here, apart) and sets it up."""
            began = time.perf_counter()
            import great_expectations  # noqa: F401
            imports.append(time.perf_counter() - began)
            checker = original()
            setups.append(time.perf_counter() - began)
            return checker

        expectations.validator = timed_validator  # the gate imports it at each check
        gate = QualityGate(repo_root, log=lambda line: None)

        def check() -> tuple[float, Any]:
            seconds, results = timed(lambda: gate.check(feed, T, gates, location,
                                                        lambda: file_instance(spark, fs, feed, location)))
            if len(results) != 1 or not results[0].success or len(results[0].expectations) != EXPECTATIONS:
                raise SystemExit(f"quality_bench: the gate did not pass the instance: {results}")
            return seconds, results[0]

        cold, cold_result = check()
        second_validator, _ = timed(original)
        aggregate(spark, location)  # its warm-up, as the gate's cold check is the gate's
        aggregate(spark, location, distinct=False)
        warm, validate, aggregations, plain = [], [], [], []
        facts: dict[str, Any] = {}
        for _ in range(ROUNDS):
            seconds, facts = timed(lambda: aggregate(spark, location))
            aggregations.append(seconds)
            plain.append(timed(lambda: aggregate(spark, location, distinct=False))[0])
            seconds, result = check()
            warm.append(seconds)
            validate.append(result.seconds)
        expectations.validator = original
        observed = {outcome.type + "(" + ",".join(outcome.columns) + ")": outcome.observed_value
                    for outcome in result.expectations}
        agreed = (observed["expect_table_row_count_to_be_between()"] == facts["rows"] == ROWS
                  and abs(observed["expect_column_mean_to_be_between(score)"] - facts["mean_score"]) < 1e-9
                  and observed["expect_column_max_to_be_between(score)"] == facts["max_score"]
                  and abs(observed["expect_column_proportion_of_unique_values_to_be_between(url)"]
                          - facts["distinct_urls"] / facts["urls"]) < 1e-9
                  and facts["distinct_ids"] == facts["ids"] == ROWS)
        if not agreed:
            raise SystemExit(f"quality_bench: the aggregation and the gate disagree: {facts} vs {observed}")

        write, gate_warm, baseline = (statistics.median(values) for values in (writes, warm, aggregations))
        ratio = gate_warm / baseline
        print(f"quality_bench: {ROWS:,} rows of parquet ({ROWS - facts['urls']:,} null urls), a "
              f"{EXPECTATIONS}-expectation suite, the toolkit's gate (Great Expectations "
              f"{sys.modules['great_expectations'].__version__}), one SparkSession local[2], median of {ROUNDS}")
        print(f"  writing the output:                {write:6.2f} s   ({rounds(writes)})")
        print(f"  one Spark aggregation, same facts: {baseline:6.2f} s   ({rounds(aggregations)})")
        print(f"  (the same without its 2 distinct counts: {statistics.median(plain):.2f} s ({rounds(plain)}), not "
              "the same facts: shown as what the distinct counts cost)")
        print(f"  gate, warm:                        {gate_warm:6.2f} s   ({rounds(warm)}; of which validating: "
              + ", ".join(f"{x:.2f}" for x in validate) + ")")
        print(f"  gate, cold (first in the process): {cold:6.2f} s   (validating {cold_result.seconds:.2f} s; "
              f"Great Expectations' import and context set-up {setups[0]:.2f} s: import {imports[0]:.2f} s, "
              f"context {setups[0] - imports[0]:.2f} s)")
        print("  set-up paid once per process: validator() took "
              f"{setups[0]:.3f} s on its first call, {second_validator * 1000:.3f} ms on its second "
              "(and in the warm checks: " + ", ".join(f"{x * 1000:.3f}" for x in setups[1:]) + " ms)")
        print(f"  gate warm / aggregation: {ratio:.2f}x (target <= {TARGET_RATIO}x); gate warm / write: "
              f"{gate_warm / write:.2f}x; gate cold / warm: {cold / gate_warm:.2f}x")
        passed = report("quality_bench", "gate warm / aggregation", ratio, TARGET_RATIO)
        print(f"  result: {'PASS' if passed else 'FAIL'}")
        return 0 if passed else 1
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
