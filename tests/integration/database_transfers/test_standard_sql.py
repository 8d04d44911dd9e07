"""The export and the incremental import on a database that speaks standard SQL only: an Apache Derby database
embedded in the Spark driver's JVM (tests/integration/databases.py), a `generic` datasource whose driver jar is the
one pyspark ships, declared as a user declares it, run by the same calls as the PostgreSQL and MariaDB tests. Derby
refuses what those two let pass: a staging table made by `CREATE TABLE ... AS SELECT ... WHERE 1 = 0` (standard
SQL says `WITH NO DATA`), a number cast to VARCHAR (the high-water mark's text) and a number compared with a
string (the rows past the mark)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import SparkSession

from tests.integration.database_transfers.test_export import (
    INSTANCE,
    export_instance,
    publish_totals,
    target_rows,
    target_table,
)
from tests.integration.database_transfers.test_import import (
    _add_orders,
    _expected,
    _instance,
    _orders_table,
    import_instance,
)
from tests.integration.database_transfers.transfer_repo import transfer_repo
from tests.integration.databases import DerbyDatabases

T0 = datetime(2026, 1, 1, 0, tzinfo=timezone.utc)
T1 = datetime(2026, 1, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2026, 1, 1, 2, tzinfo=timezone.utc)


@pytest.fixture
def derby(spark: SparkSession, tmp_path: Path) -> Iterator[DerbyDatabases]:
    databases = DerbyDatabases(spark, tmp_path / "derby")
    yield databases
    databases.shut_down("shop")


@pytest.mark.parametrize(("load", "key", "before", "after"), [
    ("snapshot", None, [("2025-12-31", "eu", "1.00")], INSTANCE),
    ("allowinsert", "day, region", [("2025-12-31", "eu", "1.00"), ("2026-01-01", "eu", "2.00")],
     [("2025-12-31", "eu", "1.00"), *INSTANCE]),
])
def test_an_export_into_a_standard_sql_database_loads_the_instances_rows(
        spark: SparkSession, derby: DerbyDatabases, tmp_path: Path, load: str, key: str | None,
        before: list[tuple[str, str, str]], after: list[tuple[str, str, str]]) -> None:
    repo = transfer_repo(tmp_path, derby, "shop", export_load=load, update_key=key)
    target_table(repo, before)
    publish_totals(spark, repo, INSTANCE)

    outcome = export_instance(spark, repo)

    assert target_rows(repo) == after
    assert outcome.rows == 2
    record = json.loads((repo.ledger() / "exports" / "totals" / "20260101T0000Z.json").read_text())
    assert (record["status"], record["rows"]) == ("SUCCEEDED", 2)
    # the exports table's columns are stored as Derby stores unquoted names: a user's query names them unquoted
    assert repo.sql('SELECT feed, cluster, instance, run_id, rows_loaded FROM "feed_toolkit_exports"') == (
        "totals\tlake\t2026-01-01T00:00Z\trun\t2\n")
    assert sorted(repo.sql("SELECT tablename FROM sys.systables WHERE tabletype = 'T'").split()) == [
        "DAILY_TOTALS", "feed_toolkit_exports"]  # the staging table is dropped


def test_an_incremental_import_from_a_standard_sql_database_reads_only_the_rows_past_its_mark(
        spark: SparkSession, derby: DerbyDatabases, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, derby, "shop")
    _orders_table(repo, 1, 100)

    first = import_instance(spark, repo, "orders", T0, run_id="first")
    _add_orders(repo, 101, 130)
    second = import_instance(spark, repo, "orders", T1, run_id="second")
    third = import_instance(spark, repo, "orders", T2, run_id="third")

    assert_df_equality(_instance(spark, repo, "orders", T0), _expected(spark, 1, 100), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert_df_equality(_instance(spark, repo, "orders", T1), _expected(spark, 101, 130), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert _instance(spark, repo, "orders", T2).count() == 0
    assert [(o.rows.after, o.rows.up_to, o.read) for o in (first, second, third)] == [
        (None, "100", 100), ("100", "130", 30), ("130", "130", 0)]
    mark = json.loads((repo.ledger() / "imports" / "orders" / "high-water.json").read_text())
    assert (mark["column"], mark["value"], mark["run_id"]) == ("id", "130", "second")


def test_an_incremental_import_by_a_timestamp_column_reads_the_rows_past_its_mark_to_the_microsecond(
        spark: SparkSession, derby: DerbyDatabases, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, derby, "shop")
    feed = repo.repo / "feeds" / "orders.yaml"
    feed.write_text(feed.read_text().replace("check-column: id", "check-column: updated"))
    repo.sql("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(64), amount DECIMAL(10,2), "
             "updated TIMESTAMP)")
    added = "INSERT INTO orders VALUES ({0}, 'customer {0}', {0}.25, '2026-01-01 10:00:00.00000{0}')"
    for i in (1, 2):
        repo.sql(added.format(i))

    first = import_instance(spark, repo, "orders", T0, run_id="first")
    repo.sql(added.format(3))
    second = import_instance(spark, repo, "orders", T1, run_id="second")

    assert_df_equality(_instance(spark, repo, "orders", T0), _expected(spark, 1, 2), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert_df_equality(_instance(spark, repo, "orders", T1), _expected(spark, 3, 3), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert [(o.rows.after, o.rows.up_to) for o in (first, second)] == [
        (None, "2026-01-01 10:00:00.000002"), ("2026-01-01 10:00:00.000002", "2026-01-01 10:00:00.000003")]
