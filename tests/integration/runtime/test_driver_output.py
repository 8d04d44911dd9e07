"""What a person and a scheduler see of an entrypoint run by the real spark-submit: the status line alone on
stdout, sentences on stderr (spark-submit merges the driver's stderr into its stdout unless the entrypoint points it
back), and none of Spark's INFO logging unless asked (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.spark_submit import spark_submit
from tests.unit.retention.retention_repo import make_repo

DRY_RUN = ("--feed", "clicks", "--cluster", "primary", "--time", "2026-03-31T10:00Z", "--dry-run")
# What the Java launcher says before any Spark or toolkit code runs (spark-submit adds the vector module).
JVM_LAUNCHER = "WARNING: Using incubator modules: jdk.incubator.vector"


def people_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line and line != JVM_LAUNCHER]


@pytest.mark.jvm
def test_a_run_prints_its_status_line_alone_and_nothing_of_sparks_start(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    result = spark_submit("retention", "--repo", str(repo), *DRY_RUN, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [line] = result.stdout.splitlines()
    assert json.loads(line)["status"] == "DRY_RUN"
    assert people_lines(result.stderr) == []


@pytest.mark.jvm
def test_a_bad_call_says_so_on_stderr_and_keeps_stdout_to_the_status_line(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    result = spark_submit("retention", "--repo", str(repo), *DRY_RUN, "--no-such-option", cwd=tmp_path)
    assert result.returncode == 2
    [line] = result.stdout.splitlines()
    assert json.loads(line)["status"] == "INVALID"
    said = people_lines(result.stderr)
    assert said[0].startswith("usage: retention.py ")
    assert said[-2:] == ["retention.py: error: unrecognized arguments: --no-such-option",
                         "retention: bad arguments (see the usage line above)"]


@pytest.mark.jvm
def test_verbose_brings_sparks_info_logging_back_on_stderr(tmp_path: Path) -> None:
    """A process instance whose inputs are missing, not waited for (exit 3): the run starts Spark, which a file
    feed's retention no longer does."""
    repo, _ = make_repo(tmp_path)
    result = spark_submit("process", "--repo", str(repo), "--process", "hourly-clicks-summary", "--cluster",
                          "primary", "--time", "2026-03-31T10:00Z", "--no-wait", "--verbose", cwd=tmp_path)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    assert len(result.stdout.splitlines()) == 1
    assert " INFO SparkContext: Running Spark version " in result.stderr


@pytest.mark.jvm
def test_a_file_feeds_retention_starts_no_spark_context(tmp_path: Path) -> None:
    """spark-submit's launcher JVM only: even asked for Spark's INFO logging, no SparkContext starts."""
    repo, _ = make_repo(tmp_path)
    result = spark_submit("retention", "--repo", str(repo), *DRY_RUN, "--verbose", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [line] = result.stdout.splitlines()
    assert json.loads(line)["status"] == "DRY_RUN"
    assert "SparkContext" not in result.stderr and "SparkSession" not in result.stderr
