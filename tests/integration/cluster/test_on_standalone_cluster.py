"""The toolkit's entrypoints through `spark-submit --master spark://... --deploy-mode client` on the session's
standalone cluster (a master and two workers of one core each: tests/integration/conftest.py), their results
asserted as in the local tests, and each run shown to have been the cluster's: the master completed an
application of the action's name (a local run registers none), and where the action runs Spark jobs (a process's
workflow and quality gate, ingest), the workers' executors logged its tasks. Retention, file replication and the
Hive export and import run no Spark tasks (their listing, copying and metastore calls are the driver's), so for
them the master's record is the proof. Independent runs go at once, so the suite pays about one run's start."""

from __future__ import annotations

import json
import subprocess
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.cluster.executors import ClusterApp, apps_of
from tests.integration.ingest.landing import drop
from tests.integration.process_runner.process_repo import make_repo, utc, write_clicks
from tests.integration.replication.hive_feed import sessions_feed
from tests.integration.spark_submit import BOTH_EXECUTORS, spark_submit
from tests.unit.ingest.ingest_repo import make_repo as make_ingest_repo
from tests.unit.retention.retention_repo import hourly_instances
from toolkit.core.storage.jvm_classes import JAR_NAME

Result = subprocess.CompletedProcess[str]
RECORDS = "feed-toolkit/working/ledger/processes"
PAGES = ("/", "/cart", "/help")


def _status(result: Result) -> dict:  # type: ignore[type-arg]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _on_cluster(apps: dict[str, ClusterApp], name: str, tasks: bool) -> None:
    """The master completed the application `name`; with `tasks`, it was granted the cluster's two cores and
    its executors (on both workers) ran tasks."""
    assert name in apps, f"the master completed no application {name}: {list(apps)}"
    app = apps[name]
    if tasks:
        assert app.cores == 2 and len(app.tasks) == 2 and all(app.tasks.values()), app
        assert all(JAR_NAME in fetched for fetched in app.jars.values()), app  # the toolkit's Java classes


@pytest.mark.jvm
def test_a_process_and_its_quality_gate_run_their_tasks_on_the_executors(spark, spark_cluster,
                                                                          tmp_path: Path) -> None:
    """Also: a jar given with spark-submit's --jars (a workflow's UDFs, say) reaches the executors beside the
    toolkit's own, which the session adds to spark.jars."""
    repo, root = make_repo(tmp_path, quality=True)
    write_clicks(root, utc(2026, 11, 21, 8), 3)  # 08:00 .. 10:00: the window of 10:00
    with zipfile.ZipFile(tmp_path / "workflow-udfs.jar", "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    with apps_of(spark_cluster) as apps:
        status = _status(spark_submit("process", "--repo", str(repo), "--process", "hourly-clicks-summary",
                                      "--cluster", "primary", "--time", "2026-11-21T10:00Z", "--now",
                                      "2026-11-21T12:00Z", cwd=tmp_path, master=spark_cluster.url,
                                      options=("--jars", str(tmp_path / "workflow-udfs.jar"), *BOTH_EXECUTORS),
                                      timeout=600))
    assert (status["status"], status["quality"]) == ("SUCCEEDED", "7/7 passed")
    _on_cluster(apps, "toolkit-process-hourly-clicks-summary-primary", tasks=True)
    app = apps["toolkit-process-hourly-clicks-summary-primary"]
    assert all("workflow-udfs.jar" in fetched for fetched in app.jars.values()), app
    # Hour 10 has 2 + 10 % 3 = 3 clicks per page by users u0..u2; the hours 08:00 to 10:00 have 4 + 2 + 3.
    assert_df_equality(spark.read.json(str(root / "data/clicks-hourly-summary/2026/11/21/10")),
                       spark.createDataFrame([(page, 3, 3, 9) for page in PAGES],
                                             "page string, clicks long, users long, clicks_3h long"),
                       ignore_row_order=True, ignore_column_order=True)
    record = json.loads((root / RECORDS / "hourly-clicks-summary/20261121T1000Z/attempt-001.json").read_text())
    [gate] = record["quality"]
    assert (record["status"], gate["suite"], gate["success"], len(gate["expectations"])) == \
        ("SUCCEEDED", "quality/clicks-hourly-summary.json", True, 7)


def _retention(repo: Path, root: Path, cluster: str, tmp_path: Path) -> Callable[[], Result]:
    hourly_instances(root, utc(2025, 12, 31, 20), 4)  # 20:00 .. 23:00
    return lambda: spark_submit("retention", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                                "--time", "2026-03-31T22:00Z", cwd=tmp_path, master=cluster, timeout=600)


def _replication(repo: Path, root: Path, cluster: str, tmp_path: Path) -> Callable[[], Result]:
    write_clicks(root, utc(2026, 11, 21, 8), 2)
    return lambda: spark_submit("replication", "--repo", str(repo), "--feed", "clicks", "--source", "primary",
                                "--target", "backup", "--time", "2026-11-21T09:00Z", "--from", "2026-11-21T08:00Z",
                                "--to", "2026-11-21T09:00Z", cwd=tmp_path, master=cluster, timeout=600)


@pytest.mark.jvm
def test_retention_replication_and_ingest_on_the_cluster(spark, spark_cluster, tmp_path: Path) -> None:
    """Three independent runs at once (each its own repo and roots), asserted as the local tests do."""
    (tmp_path / "r").mkdir()
    (tmp_path / "c").mkdir()
    (tmp_path / "i").mkdir()
    repo, old = make_repo(tmp_path / "r")
    retention = _retention(repo, old, spark_cluster.url, tmp_path)
    repo, primary = make_repo(tmp_path / "c")
    replication = _replication(repo, primary, spark_cluster.url, tmp_path)
    ingest_repo, streamed = make_ingest_repo(tmp_path / "i")
    drop(streamed, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T11:30:00Z,u3,x,/home,3", "bad"])
    with apps_of(spark_cluster) as apps, ThreadPoolExecutor(max_workers=3) as pool:
        runs = [pool.submit(retention), pool.submit(replication),
                pool.submit(spark_submit, "ingest", "--repo", str(ingest_repo.root), "--feed", "events", "--cluster",
                            "primary", cwd=tmp_path, master=spark_cluster.url, timeout=600)]
        evicted, replicated, ingested = (_status(run.result()) for run in runs)

    # days(90) before 2026-03-31T22:00Z is 2025-12-31T22:00Z: 20:00 and 21:00 go.
    assert (evicted["status"], evicted["instances_evicted"]) == ("SUCCEEDED", 2)
    assert sorted(p.name for p in (old / "data/clicks/2025/12/31").iterdir()) == ["22", "23"]
    report = json.loads((old / "feed-toolkit/working/retention/clicks/20260331T2200Z.json").read_text())
    assert [item["time"] for item in report["evicted"]] == ["2025-12-31T20:00Z", "2025-12-31T21:00Z"]
    # a file feed's retention starts no SparkContext (spark-submit's launcher alone): no application on the master
    assert not [name for name in apps if name.startswith("toolkit-retention")], list(apps)

    assert (replicated["status"], replicated["instances_published"], replicated["files_copied"]) == \
        ("SUCCEEDED", 2, 2)
    for hour in ("08", "09"):
        source = primary / f"data/clicks/2026/11/21/{hour}"
        copy = tmp_path / f"c/backup/replica/clicks/2026/11/21/{hour}"
        assert {p.name: p.read_bytes() for p in copy.iterdir()} == {p.name: p.read_bytes() for p in source.iterdir()}
    _on_cluster(apps, "toolkit-replication-clicks-backup", tasks=False)

    assert (ingested["status"], ingested["records"], ingested["rejected"], ingested["instances_closed"]) == \
        ("SUCCEEDED", 2, 1, ["2026-01-01T10:00Z"])
    assert_df_equality(spark.read.parquet(str(streamed / "data/events/2026/01/01/10")),
                       spark.createDataFrame([("2026-01-01T10:05:00Z", "u1", "/home", 12)],
                                             "ts string, user string, page string, ms int"),
                       ignore_nullable=True)
    assert (streamed / "data/events/2026/01/01/10/_SUCCESS").exists()
    _on_cluster(apps, "toolkit-ingest-events-primary", tasks=True)


@pytest.mark.jvm
def test_a_hive_table_is_replicated_by_export_and_import_on_the_cluster(spark, spark_cluster, thrift_metastore,
                                                                         tmp_path: Path) -> None:
    """The Hive feed `sessions` from primary to backup, both clusters' tables in the session's metastore server
    (databases of their own), by the replication entrypoint: export on primary, copy, import on backup."""
    repo, primary = make_repo(tmp_path)
    for name in ("primary", "backup"):
        cluster = repo / "clusters" / f"{name}.yaml"
        cluster.write_text(cluster.read_text().replace("thrift://127.0.0.1:9083", thrift_metastore.uri)
                           .replace("thrift://127.0.0.1:9084", thrift_metastore.uri))
    spec = "ds=${YEAR}-${MONTH}-${DAY}"
    (repo / "feeds" / "sessions.yaml").write_text(sessions_feed(f"catalog:cl_primary:sessions#{spec}",
                                                                f"catalog:cl_backup:sessions#{spec}"))
    raw = thrift_metastore.client(spark)
    try:
        for name in ("primary", "backup"):
            raw.create_database(f"cl_{name}", f"file://{tmp_path / name}/warehouse/cl_{name}.db")
        raw.create_table("cl_primary", "sessions", [("id", "int"), ("name", "string")], ["ds"], None, False)
        raw.add_partition("cl_primary", "sessions", ["2026-11-21"])
        rows = spark.createDataFrame([(1, "ada"), (2, "grace")], "id int, name string")
        rows.coalesce(1).write.mode("overwrite").parquet(f"file://{primary}/warehouse/cl_primary.db/sessions/"
                                                         "ds=2026-11-21")
        with apps_of(spark_cluster) as apps:
            status = _status(spark_submit("replication", "--repo", str(repo), "--feed", "sessions", "--target",
                                          "backup", "--time", "2026-11-21T00:00Z", cwd=tmp_path,
                                          master=spark_cluster.url, timeout=600))
        assert status["status"] == "SUCCEEDED", status
        assert raw.partition_names("cl_backup", "sessions") == ["ds=2026-11-21"]
    finally:
        raw.close()
    _on_cluster(apps, "toolkit-replication-sessions-backup", tasks=False)
    assert_df_equality(spark.read.parquet(f"file://{tmp_path}/backup/warehouse/cl_backup.db/sessions/ds=2026-11-21"),
                       rows, ignore_row_order=True, ignore_nullable=True)
    [event] = [json.loads(p.read_text()) for p in
               (tmp_path / "backup/feed-toolkit/working/ledger/events/sessions/20261121T0000Z").glob("*.json")]
    assert (event["kind"], event["run_id"], event["location"]) == \
        ("published", status["run_id"], "cl_backup.sessions/ds=2026-11-21")
