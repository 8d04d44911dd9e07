"""Run an entrypoint of `entrypoints/` inside the test process, on the run's shared SparkSession: what
`spark_submit` (tests/integration/spark_submit.py) does, without a JVM of its own (10 to 18 s each on two busy cores).

The script runs whole, as spark-submit runs it (`runpy`, `__main__`, its argv, its working folder and environment),
so its status line, exit code, sentences, ledger and data are what a test asserts either way. What only a real
spark-submit shows stays with `spark_submit` in tests marked `jvm` (docs/architecture.md, "Tests"): the driver's
streams and Spark's log level, launcher settings a starting SparkContext takes, another metastore than the shared
session's, a cluster, and a kill -9.

The entrypoint's `getOrCreate` returns the shared session and applies its runtime settings to it (a cluster's
`spark.sql.*` properties, say): they are put back after the call, as are the working folder, the environment, the
current database and sys.argv, so a call leaves nothing behind for the next test.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tests.integration.spark_submit import PROJECT

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run_in_process(spark: SparkSession, entrypoint: str, *args: str, cwd: Path,
                   env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`entrypoints/<entrypoint>.py ARGS...` run to its end in this process on `spark`, with `env` added to the
    environment for the call; its exit code and what it printed, as `spark_submit` returns them (an exception that
    escapes the script is its traceback on stderr and exit 1, as Python itself ends)."""
    script = PROJECT / "entrypoints" / f"{entrypoint}.py"
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with session_restored(spark), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        os.chdir(cwd)
        os.environ.update(env or {})
        sys.argv = [str(script), *args]
        try:
            runpy.run_path(str(script), run_name="__main__")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except Exception:  # noqa: BLE001 - the script's traceback, as the interpreter would print it
            traceback.print_exc(file=err)
            code = 1
    return subprocess.CompletedProcess([str(script), *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def session_restored(spark: SparkSession) -> Iterator[None]:
    """Put back what a call may change in this process: the working folder, the environment, sys.argv, the
    session's runtime settings and its current database."""
    folder, environment, argv = os.getcwd(), dict(os.environ), sys.argv
    settings = dict(spark.conf.getAll)
    database = spark.catalog.currentDatabase()
    try:
        yield
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environment)
        sys.argv = argv
        for name, value in spark.conf.getAll.items():
            if settings.get(name) != value and spark.conf.isModifiable(name):
                if name in settings:
                    spark.conf.set(name, settings[name])
                else:
                    spark.conf.unset(name)
        if spark.catalog.currentDatabase() != database:
            spark.catalog.setCurrentDatabase(database)
