"""Run an entrypoint of `entrypoints/` through the real spark-submit, as a scheduler would (local[1], loopback,
UI off, the test interpreter for the Python driver). spark-submit merges the driver's stderr into its stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
SPARK_SUBMIT = Path(__import__("pyspark").__file__).parent / "bin" / "spark-submit"


def spark_submit(entrypoint: str, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`spark-submit entrypoints/<entrypoint>.py ARGS...`, its output captured as text."""
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    return subprocess.run([str(SPARK_SUBMIT), "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                           str(PROJECT / "entrypoints" / f"{entrypoint}.py"), *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
