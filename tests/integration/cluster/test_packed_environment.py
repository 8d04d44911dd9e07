"""`make dist` on a real standalone cluster: its entrypoint script, run from an empty folder by spark-submit with
the packed environment (dist/feed-toolkit.pex) as the Python of the driver and of the executors, without the
checkout on the path or in the working directory and without the project's virtualenv, runs a process of the
template's repo whose workflow calls Python on the executors; the output holds the counts and, per row, where
the executor's Python and its toolkit came from.

The dist folder is built once per session (toolkit/devtools/dist.py, what `make dist` runs: under a minute,
most of it writing the PEX); FEED_TOOLKIT_DIST=<folder> uses one built before (`make dist`'s dist/) instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import make_repo, utc, write_clicks, write_process
from tests.integration.spark_submit import CLUSTER_OPTIONS, PROJECT, SPARK_SUBMIT
from toolkit.core.storage.jvm_classes import JAR_NAME
from toolkit.devtools.dist import PEX_NAME

T = utc(2026, 11, 21, 10)

# The process's workflow: the clicks of its hour per page, each row with the facts of the Python that ran a UDF on
# an executor, and the driver's facts (the UDF is a closure, so it is pickled by value, not imported by name).
WORKFLOW = '''
from pyspark.sql import functions as F


def run(spark, ctx):
    def facts():
        import json, os, sys

        import toolkit, yaml
        return json.dumps({"executable": sys.executable, "pex": os.environ.get("PEX", ""),
                           "toolkit": toolkit.__file__, "yaml": yaml.__file__, "path": sys.path})

    clicks = spark.read.schema("ts string, user string, page string").json(list(ctx.inputs["clicks"])[-1:])
    counts = clicks.groupBy("page").agg(F.count("*").alias("clicks"))
    executor = F.udf(lambda page: facts(), "string")
    counts.withColumn("executor", executor("page")).withColumn("driver", F.lit(facts())) \\
        .write.json(ctx.outputs["summary"])
'''


@pytest.fixture(scope="session")
def packed_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dist folder: built here once per session unless FEED_TOOLKIT_DIST names one."""
    given = os.environ.get("FEED_TOOLKIT_DIST")
    if given:
        return Path(given).resolve()
    out = tmp_path_factory.mktemp("dist")
    started = time.monotonic()
    built = subprocess.run([sys.executable, "-m", "toolkit.devtools.dist", "--out", str(out)], cwd=PROJECT,
                           env={**os.environ, "PYTHONPATH": str(PROJECT)}, capture_output=True, text=True,
                           timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    print(f"make dist's build took {time.monotonic() - started:.0f} s:\n{built.stdout}")
    return out


def _clean_environment() -> dict[str, str]:
    """The machine's environment less Python's: no PYTHONPATH, no virtualenv on PATH, no PYSPARK_* choices."""
    venv_bin = str(Path(sys.prefix) / "bin")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin)
    kept = {name: value for name, value in os.environ.items()
            if name not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not name.startswith("PYSPARK_")}
    return {**kept, "PATH": path, "SPARK_HOME": str(SPARK_SUBMIT.parents[1]), "SPARK_LOCAL_IP": "127.0.0.1"}


@pytest.mark.jvm
def test_entrypoint_runs_from_the_packed_environment_on_the_cluster(spark_cluster, packed_dist: Path,
                                                                     tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    (repo / "workflows" / "python_on_executors.py").write_text(WORKFLOW)
    write_process(repo, "packed-clicks", {"workflows/hourly_clicks_summary.py": "workflows/python_on_executors.py"})
    write_clicks(root, T - timedelta(hours=2), 3)
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    pex = packed_dist / PEX_NAME
    command = [str(SPARK_SUBMIT), "--master", spark_cluster.url, *CLUSTER_OPTIONS, "--conf", "spark.ui.enabled=false",
               "--jars", str(packed_dist / JAR_NAME), "--files", str(pex),
               "--conf", f"spark.pyspark.python=./{PEX_NAME}", "--conf", f"spark.pyspark.driver.python={pex}",
               str(packed_dist / "entrypoints" / "process.py"), "--repo", str(repo), "--process", "packed-clicks",
               "--cluster", "primary", "--time", "2026-11-21T10:00Z", "--now", "2026-11-21T10:05Z"]
    started = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True, cwd=empty, env=_clean_environment(), timeout=600)
    print(f"spark-submit on the cluster took {time.monotonic() - started:.0f} s")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert json.loads(run.stdout.strip().splitlines()[-1])["status"] == "SUCCEEDED"

    output = root / "data" / "clicks-hourly-summary" / "2026" / "11" / "21" / "10"
    rows = [json.loads(line) for part in sorted(output.glob("part-*.json")) for line in part.read_text().splitlines()]
    # Hour 10 has 2 + 10 % 3 = 3 clicks per page (tests/integration/process_runner/process_repo.py).
    assert sorted((row["page"], row["clicks"]) for row in rows) == [("/", 3), ("/cart", 3), ("/help", 3)]
    venv = (sys.prefix,) if sys.prefix != sys.base_prefix else ()  # the project's virtualenv, when it is one
    inherited = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    print("an executor's Python:", {name: json.loads(rows[0]["executor"])[name] for name in ("executable", "pex")})
    for row in rows:
        executor, driver = json.loads(row["executor"]), json.loads(row["driver"])
        # The executor ran the copy of the PEX that --files put in its work folder under a worker of the cluster.
        assert Path(executor["pex"]).name == PEX_NAME
        assert Path(executor["pex"]).is_relative_to(spark_cluster.folder), executor["pex"]
        assert driver["pex"] == str(pex.resolve())
        for facts in (executor, driver):
            for module in ("toolkit", "yaml"):  # the toolkit and its dependencies come from inside the PEX
                assert ".whl" in facts[module] and not Path(facts[module]).is_relative_to(PROJECT), facts[module]
            # Neither the project's virtualenv nor the checkout is on the path, but for this machine's Spark
            # installation (the pyspark package inside that virtualenv: pyspark.zip, py4j, spark-core's jar) and
            # what the cluster's workers inherited from this test's own PYTHONPATH (after the PEX's entries).
            assert not facts["executable"].startswith(venv), facts["executable"]
            assert [entry for entry in facts["path"] if entry.startswith((*venv, str(PROJECT)))
                    and not entry.startswith(str(SPARK_SUBMIT.parents[1])) and entry not in inherited] == []
