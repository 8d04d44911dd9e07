"""A killed run's driver as a Python process of its own on the test session's JVM, for the kill -9 tests whose kill
points are calls of the driver's Python code (tests/kill_points.py).

A kill -9 needs a process of its own; the JVM need not be its own. At a Python call of the driver, the run has no work
in the JVM: each of its JVM calls (a Spark job, a file system call) returned before the next Python line ran, so what
the JVM did for the run is done and nothing more happens for it, as when the whole driver dies there. Such a child
connects to the session's JVM as spark-submit's Python connects to the JVM that started it (PySpark's
PYSPARK_GATEWAY_PORT and PYSPARK_GATEWAY_SECRET), takes its SparkContext, and runs the real action on it: the
seconds of a JVM's start are saved for each kill point (docs/architecture.md, "Tests").

A kill at a random moment can land inside a Spark job, which a JVM of the session's would then finish: those tests
keep a JVM of their own (`own_session`), marked `jvm`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tests.integration.in_process import session_restored

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The child's `spark`: the session of the JVM whose gateway the environment names (`attached_environment`).
ATTACHED_SESSION = """
from pyspark import SparkConf, SparkContext
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession
_gateway = launch_gateway()
_jsc = _gateway.jvm.org.apache.spark.api.java.JavaSparkContext(_gateway.jvm.org.apache.spark.SparkContext.getOrCreate())
SparkContext(gateway=_gateway, jsc=_jsc, conf=SparkConf(_jconf=_jsc.sc().conf()))
spark = SparkSession.builder.getOrCreate()
"""


def own_session(jar: str) -> str:
    """The child's `spark` on a JVM of its own (with the toolkit's classes at `jar`), which dies with it."""
    return f"""
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").config("spark.jars", {jar!r}).getOrCreate())
"""


def attached_environment(spark: SparkSession) -> dict[str, str]:
    """This process's environment with the gateway of `spark`'s JVM, which PySpark in a child connects to."""
    parameters = spark.sparkContext._gateway.java_parameters  # type: ignore[union-attr]
    return {**os.environ, "PYSPARK_GATEWAY_PORT": str(parameters.port),
            "PYSPARK_GATEWAY_SECRET": str(parameters.auth_token)}


def killed_on_the_sessions_jvm(spark: SparkSession, script: str, *args: str, cwd: Path, timeout: float = 180) -> None:
    """`python -c SCRIPT ARGS...` (SCRIPT has ATTACHED_SESSION before its run) on `spark`'s JVM, which must end killed
    with SIGKILL at its kill point (else the assertion shows the end of its output: stdout and stderr as one text);
    the session's runtime settings and current database put back after it, as `run_entrypoint` does."""
    with session_restored(spark):
        child = subprocess.run([sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=cwd, env=attached_environment(spark),
                               timeout=timeout)
    assert child.returncode == -signal.SIGKILL, child.stdout[-3000:]
