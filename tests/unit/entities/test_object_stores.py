"""Object stores (s3a, abfs, gs ...) are refused: a lint error on the cluster, and exit 2 with one sentence naming
the cluster, its endpoint and why in every action, before Spark starts or anything is touched."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from tests.unit.retention.retention_repo import make_repo
from toolkit.actions.process_runner.late_check_entry import main as late_check_main
from toolkit.actions.process_runner.process_entry import main as process_main
from toolkit.actions.replication.hive.hive_entry import export_main, import_main
from toolkit.actions.replication.replication_entry import main as replication_main
from toolkit.actions.retention.retention_entry import main as retention_main
from toolkit.authoring.lint.runner import lint_paths

SCHEMES = {"s3a": "Amazon S3", "s3": "Amazon S3", "s3n": "Amazon S3", "abfs": "Azure Data Lake Storage Gen2",
           "abfss": "Azure Data Lake Storage Gen2", "wasb": "Azure Blob Storage", "wasbs": "Azure Blob Storage",
           "gs": "Google Cloud Storage", "oss": "Alibaba Cloud OSS"}
T = "2026-11-21T10:00Z"
# action -> (its main, the cluster put on the object store, its arguments after --repo)
ACTIONS: dict[str, tuple[Callable[[], int], str, list[str]]] = {
    "retention": (retention_main, "primary", ["--feed", "clicks", "--cluster", "primary"]),
    "replication": (replication_main, "backup", ["--feed", "clicks", "--target", "backup"]),
    "replication from a source on one": (replication_main, "primary", ["--feed", "clicks", "--target", "backup"]),
    "process": (process_main, "primary", ["--process", "hourly-clicks-summary", "--cluster", "primary"]),
    "late_check": (late_check_main, "primary", ["--process", "hourly-clicks-summary", "--cluster", "primary"]),
    "hive_export": (export_main, "primary", ["--feed", "clicks-daily-table", "--cluster", "primary", "--to", "/x"]),
    "hive_import": (import_main, "backup", ["--feed", "visits", "--cluster", "backup", "--from", "/x"]),
}


def endpoint(scheme: str) -> str:
    return f"{scheme}://bucket-1/warehouse"


def spark_session() -> object:
    """The JVM-backed session this process holds, if pyspark was loaded at all (unit tests load none)."""
    sql = sys.modules.get("pyspark.sql")
    return None if sql is None else sql.SparkSession._instantiatedSession


def on_object_store(repo: Path, cluster: str, scheme: str) -> None:
    path = repo / "clusters" / f"{cluster}.yaml"
    text = path.read_text()
    root = next(line.split("endpoint: ", 1)[1] for line in text.splitlines() if "endpoint: file://" in line)
    path.write_text(text.replace(root, endpoint(scheme)))


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_action_refuses_a_cluster_on_an_object_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], scheme: str,
                                                           action: str) -> None:
    main, cluster, arguments = ACTIONS[action]
    repo, _ = make_repo(tmp_path)
    on_object_store(repo, cluster, scheme)
    monkeypatch.setattr(sys, "argv", [action, "--repo", str(repo), "--time", T, *arguments])
    session = spark_session()
    assert main() == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in error
    assert f"cluster '{cluster}'" in error and endpoint(scheme) in error and SCHEMES[scheme] in error
    assert "atomic rename" in error
    assert spark_session() is session  # refused before a Spark session was built


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_directory_argument_on_an_object_store_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str], scheme: str) -> None:
    repo, _ = make_repo(tmp_path)
    monkeypatch.setattr(sys, "argv", ["hive_export", "--repo", str(repo), "--time", T, "--feed",
                                      "clicks-daily-table", "--cluster", "primary", "--to", endpoint(scheme) + "/x"])
    session = spark_session()
    assert export_main() == 2
    error = capsys.readouterr().err.strip()
    assert f"--to '{endpoint(scheme)}/x'" in error and SCHEMES[scheme] in error
    assert spark_session() is session


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lint_reports_a_cluster_on_an_object_store(tmp_path: Path, scheme: str) -> None:
    repo, _ = make_repo(tmp_path)
    on_object_store(repo, "backup", scheme)
    report = lint_paths([repo])
    found = [(p.code, p.file.name, p.message) for p in report.problems]
    assert {(code, file) for code, file, _ in found} == {("CL006", "backup.yaml")}
    assert len(found) == 2  # the readonly and the write endpoint, each at its line
    assert all(endpoint(scheme) in message and SCHEMES[scheme] in message for _, _, message in found)
    assert sorted(p.line for p in report.problems) == [
        number for number, line in enumerate((repo / "clusters/backup.yaml").read_text().splitlines(), 1)
        if endpoint(scheme) in line]


def test_hdfs_and_local_clusters_lint_clean() -> None:
    assert not [p for p in lint_paths([TEMPLATE]).problems if p.code == "CL006"]
