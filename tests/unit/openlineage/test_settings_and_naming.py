"""When lineage is on (the client's own configuration, or the cluster's openlineage.* properties), the job
namespace, and the names of feeds as OpenLineage datasets (the spec's naming, through the client's classes)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError
from toolkit.services.openlineage.naming import DatasetName, feed_dataset, instance_run_id, job_name, path_dataset
from toolkit.services.openlineage.parent import parent_from_conf
from toolkit.services.openlineage.settings import LineageSettings, lineage_settings

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"


@pytest.fixture(scope="module")
def repo() -> ConfigRepo:
    return ConfigRepo.load(TEMPLATE)


def test_without_configuration_lineage_is_off(repo: ConfigRepo, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert lineage_settings(repo.cluster("primary"), {}, tmp_path) is None


@pytest.mark.parametrize("environ", [{"OPENLINEAGE_URL": "http://lineage:5000"},
                                     {"OPENLINEAGE__TRANSPORT__TYPE": "console"}])
def test_the_clients_variables_turn_it_on(repo: ConfigRepo, tmp_path: Path, monkeypatch, environ) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert lineage_settings(repo.cluster("primary"), environ, tmp_path) == \
        LineageSettings("feed-toolkit.primary", {})


def test_an_openlineage_yml_turns_it_on_and_disabled_wins(repo: ConfigRepo, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "openlineage.yml").write_text("transport:\n  type: console\n")
    assert lineage_settings(repo.cluster("primary"), {}, tmp_path) is not None
    assert lineage_settings(repo.cluster("primary"), {"OPENLINEAGE_DISABLED": "true"}, tmp_path) is None
    given = tmp_path / "elsewhere.yml"
    given.write_text("transport:\n  type: console\n")
    assert lineage_settings(repo.cluster("primary"), {"OPENLINEAGE_CONFIG": str(given)}, tmp_path / "x") is not None


def test_cluster_properties_nest_as_the_clients_configuration(repo: ConfigRepo, tmp_path: Path,
                                                              monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    cluster = replace(repo.cluster("primary"), properties={
        "openlineage.transport.type": "http", "openlineage.transport.url": "http://marquez:5000",
        "openlineage.transport.auth.type": "api_key", "openlineage.namespace": "prod-eu", "spark.x": "1"})
    assert lineage_settings(cluster, {}, tmp_path) == LineageSettings("prod-eu", {"transport": {
        "type": "http", "url": "http://marquez:5000", "auth": {"type": "api_key"}}})
    assert lineage_settings(cluster, {"OPENLINEAGE_NAMESPACE": "env"}, tmp_path).namespace == "prod-eu"


def test_a_property_that_is_both_a_value_and_a_branch_is_refused(repo: ConfigRepo) -> None:
    cluster = replace(repo.cluster("primary"), properties={"openlineage.transport": "http",
                                                           "openlineage.transport.url": "http://x"})
    with pytest.raises(UsageError, match="both a value and keys below it"):
        lineage_settings(cluster, {}, Path("/nonexistent"))


@pytest.mark.parametrize(("uri", "expected"), [
    ("hdfs://nn.example:8020/data/clicks", DatasetName("hdfs://nn.example:8020", "/data/clicks")),
    ("file:///var/data/primary/data/clicks", DatasetName("file", "/var/data/primary/data/clicks")),
    ("file:/var/data/x", DatasetName("file", "/var/data/x")),
    ("s3a://lake/data/clicks", DatasetName("s3://lake", "data/clicks")),
    ("gs://bucket/a/b", DatasetName("gs://bucket", "a/b")),
    ("abfss://c@acct.dfs.core.windows.net/data", DatasetName("abfss://c@acct.dfs.core.windows.net", "/data")),
])
def test_paths_are_named_by_the_spec(uri: str, expected: DatasetName) -> None:
    assert path_dataset(uri) == expected


def test_a_feed_is_its_location_before_the_first_date_variable_or_its_table(repo: ConfigRepo) -> None:
    primary = repo.cluster("primary")
    assert feed_dataset(repo.feed("clicks"), primary) == \
        DatasetName("file", "/tmp/feed-toolkit-demo/primary/data/clicks")
    assert feed_dataset(repo.feed("clicks-daily-table"), primary) == \
        DatasetName("hive://127.0.0.1:9083", "web.clicks_daily")
    embedded = replace(primary, interfaces={k: v for k, v in primary.interfaces.items() if k != "registry"})
    assert feed_dataset(repo.feed("clicks-daily-table"), embedded) == DatasetName("hive://primary",
                                                                                  "web.clicks_daily")


def test_attempts_of_one_instance_share_their_parent_run() -> None:
    job = job_name("feed-toolkit.primary", "process", "hourly-clicks-summary")
    assert job.name == "process.hourly-clicks-summary"
    assert instance_run_id(job, "2026-11-21T10:00Z") == instance_run_id(job, "2026-11-21T10:00Z")
    assert instance_run_id(job, "2026-11-21T10:00Z") != instance_run_id(job, "2026-11-21T11:00Z")


def test_airflows_parent_is_read_and_a_broken_one_ignored(capsys) -> None:
    run = "01890d7e-6a3e-7c2b-9b8f-3c1d2e4f5a6b"
    parent = parent_from_conf({"spark.openlineage.parentJobNamespace": "airflow",
                               "spark.openlineage.parentJobName": "dag.task", "spark.openlineage.parentRunId": run})
    assert parent is not None and (parent.namespace, parent.name, parent.run_id, parent.root) == \
        ("airflow", "dag.task", run, None)
    assert parent_from_conf({}) is None
    assert parent_from_conf({"spark.openlineage.parentJobName": "dag.task",
                             "spark.openlineage.parentRunId": "not-a-uuid"}) is None
    assert "is incomplete or its run id is not a UUID ('not-a-uuid')" in capsys.readouterr().err


def test_a_metastore_address_with_a_user_info_is_named_by_its_host_and_port_alone(repo: ConfigRepo) -> None:
    primary = repo.cluster("primary")
    registry = replace(primary.interfaces["registry"], endpoint="thrift://hive:p/LEAK@127.0.0.1:9083")
    cluster = replace(primary, interfaces={**primary.interfaces, "registry": registry})
    assert feed_dataset(repo.feed("clicks-daily-table"), cluster) == \
        DatasetName("hive://127.0.0.1:9083", "web.clicks_daily")


def test_a_metastore_port_that_is_no_number_is_one_sentence(repo: ConfigRepo) -> None:
    primary = repo.cluster("primary")
    registry = replace(primary.interfaces["registry"], endpoint="thrift://127.0.0.1:90x3")
    cluster = replace(primary, interfaces={**primary.interfaces, "registry": registry})
    with pytest.raises(UsageError, match=r"^The registry endpoint of cluster 'primary' has port '90x3'"):
        feed_dataset(repo.feed("clicks-daily-table"), cluster)


@pytest.mark.parametrize(("uri", "expected"), [
    ("hdfs://etl:p/LEAK@nn.example:8020/data/clicks", DatasetName("hdfs://nn.example:8020", "/data/clicks")),
    ("webhdfs://etl:LEAK@nn.example:9870/data", DatasetName("webhdfs://nn.example:9870", "/data")),
])
def test_a_paths_user_info_is_no_part_of_its_name(uri: str, expected: DatasetName) -> None:
    assert path_dataset(uri) == expected
