"""The config repo template loads, holds the values its README and the demo rely on, and is consistent."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from entity_samples import TEMPLATE

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.entities import ConfigRepo, EntityRef, Kind, find_repo_root
from toolkit.core.entities.model import FeedClusterType, Order, Policy
from toolkit.core.entities.schemas import schema_text


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def repo() -> ConfigRepo:
    return ConfigRepo.load(TEMPLATE)


def test_template_has_the_entities_the_demo_uses(repo):
    assert sorted(repo.clusters) == ["backup", "primary"]
    assert sorted(repo.feeds) == ["clicks", "clicks-daily", "clicks-daily-table", "clicks-hourly-summary",
                                  "page-view-counts", "page-views", "shop-orders", "top-pages", "visits"]
    assert sorted(repo.datasources) == ["shop-db"]  # the shop's database: shop-orders imported, top-pages exported
    assert sorted(repo.processes) == ["daily-clicks-rollup", "hourly-clicks-summary", "hourly-page-view-counts",
                                      "top-pages"]
    assert repo.feed("page-views").ingest is not None  # the streamed feed `make demo` ingests into


def test_clusters(repo):
    for name in ("primary", "backup"):
        cluster = repo.cluster(name)
        assert cluster.write_endpoint == f"file:///tmp/feed-toolkit-demo/{name}"
        assert set(cluster.interfaces) == {"readonly", "write", "execute", "workflow", "registry"}
        assert all("://" in interface.endpoint for interface in cluster.interfaces.values())
        assert set(cluster.locations) == {"staging", "temp", "working"}
        assert "spark.sql.shuffle.partitions" in cluster.properties
    assert repo.cluster("primary").location("working") == "/feed-toolkit/working"
    # `make demo` starts a local metastore on each cluster's registry port.
    assert repo.cluster("primary").registry_endpoint == "thrift://127.0.0.1:9083"
    assert repo.cluster("backup").registry_endpoint == "thrift://127.0.0.1:9084"


def test_visits_is_a_daily_table_feed_replicated_to_backup(repo):
    visits = repo.feed("visits")
    assert visits.frequency == Frequency(TimeUnit.DAYS, 1)
    assert visits.table_on("primary") == visits.table_on("backup") == "catalog:web:visits#ds=${YEAR}-${MONTH}-${DAY}"
    assert dict(visits.locations_on("primary")) == {}
    assert visits.cluster("primary").type is FeedClusterType.SOURCE
    assert visits.cluster("backup").type is FeedClusterType.TARGET
    assert visits.cluster("primary").retention.limit == Frequency(TimeUnit.DAYS, 30)


def test_clicks_feed(repo):
    clicks = repo.feed("clicks")
    assert clicks.frequency == Frequency(TimeUnit.HOURS, 1)
    assert clicks.availability_flag == "_SUCCESS"
    assert clicks.late_arrival.cut_off == Frequency(TimeUnit.HOURS, 6)
    assert dict(clicks.locations_on("primary")) == {"data": "/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    assert dict(clicks.locations_on("backup")) == {"data": "/replica/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"}
    primary, backup = clicks.cluster("primary"), clicks.cluster("backup")
    assert primary.type is FeedClusterType.SOURCE and backup.type is FeedClusterType.TARGET
    assert primary.retention.limit == Frequency(TimeUnit.DAYS, 90)
    assert backup.retention.limit == Frequency(TimeUnit.MONTHS, 12)
    assert primary.retention.action == "delete"
    assert primary.validity.start == utc("2025-12-01T00:00Z") and primary.validity.end == utc("2099-12-31T00:00Z")


def test_derived_feeds(repo):
    daily = repo.feed("clicks-daily")
    assert daily.frequency == Frequency(TimeUnit.DAYS, 1)
    assert daily.locations["data"] == "/data/clicks-daily/${YEAR}/${MONTH}/${DAY}"
    summary = repo.feed("clicks-hourly-summary")
    assert summary.frequency == Frequency(TimeUnit.HOURS, 1)
    assert summary.cluster_names == ("primary",)


def test_hourly_process(repo):
    process = repo.process("hourly-clicks-summary")
    assert process.frequency == Frequency(TimeUnit.HOURS, 1)
    [clicks] = process.inputs
    assert (clicks.name, clicks.feed, clicks.start, clicks.end) == ("clicks", "clicks", "now(-2,0)", "now(0,0)")
    [summary] = process.outputs
    assert (summary.name, summary.feed, summary.instance) == ("summary", "clicks-hourly-summary", "now(0,0)")
    assert process.workflow.engine == "pyspark"
    assert process.workflow.path == "workflows/hourly_clicks_summary.py"
    assert process.retry.policy is Policy.PERIODIC and process.retry.attempts == 3
    assert process.retry.delay == Frequency(TimeUnit.MINUTES, 5)
    assert [late.input for late in process.late_process.late_inputs] == ["clicks"]
    assert process.cluster("primary").validity.start == utc("2026-01-01T00:00Z")
    assert process.order is Order.FIFO


def test_daily_process(repo):
    process = repo.process("daily-clicks-rollup")
    assert process.frequency == Frequency(TimeUnit.DAYS, 1)
    [hourly] = process.inputs
    assert (hourly.feed, hourly.start, hourly.end) == ("clicks-hourly-summary", "yesterday(0,0)", "yesterday(23,0)")
    daily, table = process.outputs
    assert (daily.feed, daily.instance) == ("clicks-daily", "yesterday(0,0)")
    assert (table.name, table.feed, table.instance) == ("daily-table", "clicks-daily-table", "yesterday(0,0)")
    assert process.workflow.engine == "spark-sql"
    assert process.workflow.path == "workflows/daily_clicks_rollup.sql"


def test_lineage_of_the_template(repo):
    assert repo.transitive_dependents(EntityRef(Kind.FEED, "clicks")) == (
        EntityRef(Kind.PROCESS, "hourly-clicks-summary"),
    )
    # References, not data flow: a feed depends on its clusters only, whoever produces it.
    assert set(repo.transitive_dependencies(repo.process("daily-clicks-rollup"))) == {
        EntityRef(Kind.CLUSTER, "primary"),
        EntityRef(Kind.FEED, "clicks-hourly-summary"),
        EntityRef(Kind.FEED, "clicks-daily"),
        EntityRef(Kind.FEED, "clicks-daily-table"),
    }
    assert set(repo.dependents(EntityRef(Kind.FEED, "clicks-hourly-summary"))) == {
        EntityRef(Kind.PROCESS, "hourly-clicks-summary"),
        EntityRef(Kind.PROCESS, "daily-clicks-rollup"),
    }


def test_files_match_names_kinds_and_schema_comments(repo):
    for entity in repo.entities:
        assert entity.file_stem == entity.name
        assert entity.folder == entity.kind.folder
        first_line = entity.source_file.read_text("utf-8").splitlines()[0]
        assert first_line == f"# yaml-language-server: $schema=../.schemas/{entity.kind.value}.json"
        assert (entity.source_file.parent / ".." / ".schemas" / f"{entity.kind.value}.json").resolve().is_file()


def test_workflow_files_exist_and_define_their_entry_point(repo):
    for process in repo.processes.values():
        # Falcon's spark engine runs the application of spark-attributes.jar; its workflow.path is a folder.
        spark = process.spark_attributes
        paths = [spark.jar] if spark is not None and spark.jar is not None else [process.workflow.path]
        if process.late_process is not None:
            paths += [late.workflow_path for late in process.late_process.late_inputs]
        for path in paths:
            assert (TEMPLATE / path).is_file(), path
    pyspark = (TEMPLATE / "workflows" / "hourly_clicks_summary.py").read_text("utf-8")
    assert "def run(spark: SparkSession, ctx) -> None:" in pyspark
    assert 'ctx.inputs["clicks"]' in pyspark and 'ctx.outputs["summary"]' in pyspark
    sql = (TEMPLATE / "workflows" / "daily_clicks_rollup.sql").read_text("utf-8")
    assert "${hourly}" in sql and "${daily}" in sql
    application = (TEMPLATE / "workflows" / "top_pages_app.py").read_text("utf-8")
    assert "main(*sys.argv[1:4])" in application and "import toolkit" not in application


def test_template_carries_the_packaged_schemas():
    for kind in Kind:
        copy = TEMPLATE / ".schemas" / f"{kind.value}.json"
        assert json.loads(copy.read_text("utf-8")) == json.loads(schema_text(kind))


def test_repo_root_of_a_workflow_file():
    assert find_repo_root(TEMPLATE / "workflows" / "daily_clicks_rollup.sql") == TEMPLATE
