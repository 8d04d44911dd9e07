"""Run an entrypoint of `entrypoints/` through the real spark-submit, as a scheduler would (local[1] unless a
`master` is given, such as the `spark_cluster` fixture's URL; loopback, UI off, the test interpreter for the Python
driver and executors). spark-submit merges the driver's stderr into its stdout; the entrypoints point it back at
spark-submit's stderr (toolkit/services/runtime/streams.py), so stdout holds the status line and stderr the
sentences."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.jvm_options import SHORT_LIVED

PROJECT = Path(__file__).resolve().parents[2]
SPARK_SUBMIT = Path(__import__("pyspark").__file__).parent / "bin" / "spark-submit"


def environment() -> dict[str, str]:
    return {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable}


# On a standalone cluster: client deploy mode, one core per executor, executors small enough for two workers of 1g,
# and the executors' JVMs, which live as long as the call, started as cheaply as its driver (tests/jvm_options.py).
CLUSTER_OPTIONS = ("--deploy-mode", "client", "--conf", "spark.executor.cores=1", "--conf", "spark.cores.max=2",
                   "--conf", "spark.executor.memory=512m", "--conf", f"spark.executor.extraJavaOptions={SHORT_LIVED}")


# For a test that asserts tasks ran on both executors: the SparkContext waits at its start until both have
# registered (standalone's default ratio is 0: on two busy cores one executor could run every task before the second
# came up). Not for every cluster test: two applications at once would each wait for cores the other holds.
BOTH_EXECUTORS = ("--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
                  "--conf", "spark.scheduler.maxRegisteredResourcesWaitingTime=120s")


def spark_submit_command(entrypoint: str, *args: str, master: str = "local[1]",
                         options: tuple[str, ...] = ()) -> list[str]:
    """`spark-submit entrypoints/<entrypoint>.py ARGS...` as an argument list."""
    return script_command(PROJECT / "entrypoints" / f"{entrypoint}.py", *args, master=master, options=options)


def script_command(script: Path, *args: str, master: str = "local[1]", options: tuple[str, ...] = ()) -> list[str]:
    """`spark-submit SCRIPT ARGS...` (a demo script, say) as an argument list; `options` go to spark-submit
    (`--jars`, say)."""
    cluster = CLUSTER_OPTIONS if master.startswith("spark://") else ()
    return [str(SPARK_SUBMIT), "--master", master, *cluster, "--conf", "spark.ui.enabled=false", *options,
            str(script), *args]


def spark_submit(entrypoint: str, *args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None,
                 master: str = "local[1]", options: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run it to the end, its output captured as text; `env` adds variables (OPENLINEAGE_URL, say)."""
    return subprocess.run(spark_submit_command(entrypoint, *args, master=master, options=options),
                          capture_output=True, text=True, cwd=cwd, env={**environment(), **(env or {})},
                          timeout=timeout)
