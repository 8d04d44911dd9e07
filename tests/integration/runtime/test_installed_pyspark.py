"""Under the real spark-submit, whose pyspark.zip is the installed package's own release, an entrypoint's driver
imports the installed pyspark and py4j (their bytecode cached), not the zips compiled from source on every run, and
its session works with them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.integration.spark_submit import PROJECT, environment, script_command

JOB = f"""
import sys
sys.path.insert(0, {str(PROJECT)!r})
zips_before = [entry for entry in sys.path if entry.endswith(("pyspark.zip", "-src.zip"))]
from toolkit.services.runtime.installed_pyspark import prefer_installed_pyspark
prefer_installed_pyspark()
import py4j, pyspark
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
print(len(zips_before), pyspark.__file__, py4j.__file__, spark.range(5).count(), sep="\\n")
spark.stop()
"""


@pytest.mark.jvm
def test_the_driver_imports_the_installed_pyspark_and_its_session_runs(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(JOB)
    done = subprocess.run(script_command(job), capture_output=True, text=True, env=environment(), timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    zips, pyspark_file, py4j_file, count = done.stdout.splitlines()[-4:]
    installed = Path(__import__("pyspark").__file__)
    assert zips == "2"  # spark-submit did put both zips first
    assert Path(pyspark_file) == installed and ".zip" not in py4j_file
    assert count == "5"
