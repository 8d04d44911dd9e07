"""Ingest into a table feed (toolkit/actions/ingest/targets.py) on real Spark with Hive support and its metastore: each
hour's partition appears in the metastore with its first batch's file (never empty), later batches add a file to
it, Spark SQL reads exactly the ingested rows, the table's own columns are the records' columns, and a closed
hour is published with the partition as its location."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.integration.ingest.landing import drop
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext


def table_repo(tmp_path: Path, database: str):  # type: ignore[no-untyped-def]
    """The ingest test feed `events`, stored as the table `<database>.events` partitioned by day and hour."""
    repo, root = make_repo(tmp_path)
    path = repo.root / "feeds" / "events.yaml"
    text = path.read_text()
    text = text.replace("locations:\n  data: /data/events/${YEAR}/${MONTH}/${DAY}/${HOUR}\n",
                        f"table:\n  uri: catalog:{database}:events#ds=${{YEAR}}-${{MONTH}}-${{DAY}};hr=${{HOUR}}\n")
    start, end = text.index("columns:"), text.index("format: parquet\n") + len("format: parquet\n")
    path.write_text(text[:start] + text[end:])  # the table's columns and format are the feed's
    from toolkit.core.entities.repo import ConfigRepo

    return ConfigRepo.load(repo.root), root


def test_partitions_appear_with_their_rows_and_sql_reads_them(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.catalog_spark import SparkCatalog
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = table_repo(tmp_path, "ingest_t1")
    spark.sql("CREATE DATABASE ingest_t1")
    spark.sql(f"CREATE TABLE ingest_t1.events (ts string, user string, page string, ms int) PARTITIONED BY "
              f"(ds string, hr string) STORED AS PARQUET LOCATION 'file://{root}/warehouse/events'")
    catalog = SparkCatalog(spark)
    fs = HadoopFileSystem(spark)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T10:59:59Z,u2,x,/cart,7",
                         "2026-01-01T11:30:00Z,u3,x,/home,3"])
    first = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="t1", catalog=catalog))
    assert (first.records, first.closed) == (3, ["2026-01-01T10:00Z"])
    partitions = catalog.list_partitions("ingest_t1", "events")
    assert [(dict(p.values), p.location) for p in partitions] == [
        ({"ds": "2026-01-01", "hr": "10"}, f"file://{root}/warehouse/events/ds=2026-01-01/hr=10"),
        ({"ds": "2026-01-01", "hr": "11"}, f"file://{root}/warehouse/events/ds=2026-01-01/hr=11")]
    drop(root, "b.csv", ["2026-01-01T11:45:00Z,u4,x,/pay,1", "2026-01-01T12:10:00Z,u5,x,/home,1"])
    second = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="t2", catalog=catalog))
    assert (second.records, second.closed) == (2, ["2026-01-01T11:00Z"])
    spark.sql("REFRESH TABLE ingest_t1.events")
    got = [tuple(r) for r in spark.sql("SELECT hr, user, ms FROM ingest_t1.events ORDER BY user").collect()]
    assert got == [("10", "u1", 12), ("10", "u2", 7), ("11", "u3", 3), ("11", "u4", 1), ("12", "u5", 1)]
    hour11 = root / "warehouse/events/ds=2026-01-01/hr=11"
    assert len([p for p in hour11.iterdir() if p.name.startswith("part-")]) == 2  # a file per batch
    ledger = Ledger.of(fs, repo.cluster("primary"))
    [event] = ledger.events("events", datetime(2026, 1, 1, 11, tzinfo=timezone.utc))
    assert (event.kind, event.producer, event.location) == ("published", "ingest",
                                                            "ingest_t1.events/ds=2026-01-01/hr=11")


def test_a_table_feed_without_its_table_or_metastore_is_exit_2(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.catalog_spark import SparkCatalog
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = table_repo(tmp_path, "ingest_missing")
    fs = HadoopFileSystem(spark)
    with pytest.raises(UsageError, match="its ingest needs the Hive metastore"):
        run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r"))
    with pytest.raises(UsageError, match=r"^The table ingest_missing.events of feed 'events' does not exist"):
        run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r", catalog=SparkCatalog(spark)))


@pytest.mark.jvm
def test_the_entrypoint_adds_partitions_in_the_clusters_thrift_metastore(spark, thrift_metastore,
                                                                        tmp_path: Path) -> None:
    import json

    from tests.integration.spark_submit import spark_submit

    repo, root = table_repo(tmp_path, "ingest_thrift")
    cluster = repo.root / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace(
        "interfaces:\n", f'interfaces:\n  registry: {{endpoint: "{thrift_metastore.uri}", version: "3.1"}}\n'))
    raw = thrift_metastore.client(spark)
    location = root / "warehouse" / "events"
    raw.create_database("ingest_thrift", (root / "warehouse").as_uri())
    raw.create_table("ingest_thrift", "events", [("ts", "string"), ("user", "string"), ("page", "string"),
                                                 ("ms", "int")], ["ds", "hr"], f"file://{location}", external=True)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T11:30:00Z,u3,x,/home,3", "bad"])
    done = spark_submit("ingest", "--repo", str(repo.root), "--feed", "events", "--cluster", "primary", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]
    status = json.loads(done.stdout.strip().splitlines()[-1])
    assert (status["status"], status["records"], status["rejected"], status["instances_closed"]) == (
        "SUCCEEDED", 2, 1, ["2026-01-01T10:00Z"])
    assert raw.partition_names("ingest_thrift", "events") == ["ds=2026-01-01/hr=10", "ds=2026-01-01/hr=11"]
    got = spark.read.parquet(f"file://{location}/ds=2026-01-01/hr=10").collect()
    assert [(r.ts, r.user, r.page, r.ms) for r in got] == [("2026-01-01T10:05:00Z", "u1", "/home", 12)]
