"""Benchmark of lineage (issue 17).

1. Emitting: a process instance reading 720 input instances (a month of hourly clicks), run in one SparkSession
   by the process runner with lineage off and with lineage on (the client's file transport), rounds alternating.
   The time lineage adds is measured where it is spent (building the datasets and events, sending, keeping them in
   the ledger) and, less precisely, as the difference of the runs' medians. Target: under 50 ms. The client's
   import (about 0.4 s) is paid in a background thread while Spark starts (toolkit/services/openlineage/transport.py):
   printed on its own.
Further cases (instance lineage over a year of hourly instances, the graph of 500 entities) are printed by
bench/lineage_query_bench.py and bench/graph_bench.py, which `make bench` runs beside this one.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench.figures import report  # noqa: E402
from bench.process_bench import T, make_repo, write_clicks  # noqa: E402

ROUNDS = 5
TARGET_SECONDS = 0.050


class Spent:
    """Wraps the functions where lineage spends its time, adding up their wall time."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def timed(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - began
        return wrapper


def client_import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import openlineage.client; print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def main() -> int:
    from pyspark.sql import SparkSession

    import toolkit.actions.process_runner.attempt_lineage as attempt_lineage_module
    import toolkit.actions.process_runner.runner as runner_module
    from toolkit.actions.process_runner.run_results import RunOptions
    from toolkit.actions.process_runner.runner import ProcessRunner
    from toolkit.clock import WallClock
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.ledger.layout import LedgerLayout
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.services.openlineage.run import Lineage, RunLineage
    from toolkit.services.openlineage.settings import LineageSettings
    from toolkit.services.openlineage.store import LineageBook
    from toolkit.services.runtime.run_context import RunContext

    scratch = Path(tempfile.mkdtemp(prefix="lineage_bench_"))
    spark = (SparkSession.builder.master("local[2]").appName("lineage_bench").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        root = scratch / "primary"
        repo_path = make_repo(scratch, root)
        write_clicks(root, T - timedelta(hours=719), 720)
        repo = ConfigRepo.load(repo_path)
        cluster = repo.cluster("primary")
        fs = HadoopFileSystem(spark)
        spent = Spent()
        RunLineage._event = spent.timed(RunLineage._event)  # type: ignore[method-assign]
        # each helper timed where it is called: the inputs where the runner names them, the outputs where an
        # attempt's lineage does
        for module, name in ((runner_module, "input_uses"), (attempt_lineage_module, "planned_output_uses"),
                             (attempt_lineage_module, "published_output_uses")):
            setattr(module, name, spent.timed(getattr(module, name)))
        events_file = scratch / "events.jsonl"
        settings = LineageSettings("bench", {"transport": {"type": "file", "log_file_path": str(events_file),
                                                           "append": True}})

        def run(lineage: Lineage) -> float:
            context = RunContext(fs, "bench", lineage=lineage, clock=WallClock(T))
            runner = ProcessRunner(repo, "monthly-window", "primary", context, spark=spark,
                                   catalog=lambda: catalog_for(spark, None), options=RunOptions(force=True),
                                   log=lambda line: None)
            began = time.perf_counter()
            result = runner.run(T)
            elapsed = time.perf_counter() - began
            if result.status != "SUCCEEDED":
                raise SystemExit(f"lineage_bench: the run did not succeed: {result.reason}")
            return elapsed

        run(Lineage.off())  # warm-up: Spark's first job, the JIT
        warm = Lineage(settings, LineageBook(fs, LedgerLayout.of(cluster)), "bench", "primary")
        run(warm)
        off, on, lineage_seconds = [], [], []
        for _ in range(ROUNDS):
            off.append(run(Lineage.off()))
            before = spent.seconds
            on.append(run(Lineage(settings, LineageBook(fs, LedgerLayout.of(cluster)), "bench", "primary")))
            lineage_seconds.append(spent.seconds - before)
        events = events_file.read_text().splitlines()
        inputs = len(__import__("json").loads(events[-1])["inputs"][0]["inputFacets"]["subset"]["inputCondition"]
                     ["locations"])
        cost, difference = statistics.median(lineage_seconds), statistics.median(on) - statistics.median(off)
        print(f"lineage_bench: a process instance reading {inputs} input instances, one SparkSession, "
              f"median of {ROUNDS} alternating rounds; file transport ({len(events)} events written)")
        print(f"  run without lineage:  {statistics.median(off):6.3f} s   (rounds: "
              + ", ".join(f"{x:.3f}" for x in off) + ")")
        print(f"  run with lineage:     {statistics.median(on):6.3f} s   (rounds: "
              + ", ".join(f"{x:.3f}" for x in on) + ")")
        ratio = statistics.median(on) / statistics.median(off)
        print(f"  difference of the medians: {difference * 1000:+.0f} ms (ratio {ratio:.3f}x; Spark's own variation "
              "between rounds is of this order)")
        print(f"  time spent in lineage (datasets, START and COMPLETE built, sent, kept in the ledger): "
              f"{cost * 1000:.1f} ms   (target: < {TARGET_SECONDS * 1000:.0f} ms; rounds: "
              + ", ".join(f"{x * 1000:.1f}" for x in lineage_seconds) + ")")
        print(f"  the client's import, paid once per call in a background thread while Spark starts: "
              f"{client_import_seconds():.3f} s")
        passed = report("lineage_bench", "time spent in lineage", cost, TARGET_SECONDS, unit="s")
        print(f"  result: {'PASS' if passed else 'FAIL'}")
        return 0 if passed else 1
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
