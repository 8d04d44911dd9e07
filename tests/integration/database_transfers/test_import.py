"""The database import (toolkit/actions/database_import/) on real PostgreSQL and MariaDB servers, through the shared
Spark session: full and incremental imports compared row by row with the table (chispa), the high-water mark's steps,
fields, the feed's declared columns, and what a bad definition or an unreachable database says (one sentence,
exit code, nothing published, no password anywhere)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.sql import DataFrame, SparkSession

from tests.integration.database_transfers.transfer_repo import TransferRepo, transfer_repo
from tests.integration.databases import DatabaseServer
from toolkit.actions.database_import.import_entry import import_policy
from toolkit.actions.database_import.runner import ImportCall, ImportOutcome, run_import
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.hadoop import HadoopFileSystem
from toolkit.core.storage.jdbc.credential_provider import alias_reader
from toolkit.errors import SkippedError, ToolkitError, UsageError
from toolkit.services.datasource_access.endpoints import FOR_IMPORT, endpoint_for
from toolkit.services.runtime.run_context import RunContext

T0 = datetime(2026, 1, 1, 0, tzinfo=timezone.utc)
T1 = datetime(2026, 1, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2026, 1, 1, 2, tzinfo=timezone.utc)
ORDERS = "id bigint, customer string, amount decimal(10,2)"


@pytest.fixture(params=["postgres", "mariadb"])
def server(request: pytest.FixtureRequest) -> DatabaseServer:
    return request.getfixturevalue(f"{request.param}_server")


def _database(server: DatabaseServer, name: str) -> str:
    """A new database per test: tests share the servers."""
    server.create_database(name)
    return name


def _orders_table(repo: TransferRepo, first: int, last: int) -> None:
    text = "text" if repo.server.kind == "postgres" else "varchar(64)"
    repo.sql(f"CREATE TABLE orders (id bigint primary key, customer {text}, amount numeric(10,2), note {text})")
    _add_orders(repo, first, last)


def _add_orders(repo: TransferRepo, first: int, last: int) -> None:
    values = ", ".join(f"({i}, 'customer {i}', {i}.25, 'note')" for i in range(first, last + 1))
    repo.sql(f"INSERT INTO orders (id, customer, amount, note) VALUES {values}")


def _expected(spark: SparkSession, first: int, last: int) -> DataFrame:
    return spark.createDataFrame([(i, f"customer {i}", Decimal(f"{i}.25")) for i in range(first, last + 1)], ORDERS)


def import_instance(spark: SparkSession, repo: TransferRepo, feed: str, t: datetime, *, force: bool = False,
                    run_id: str = "run") -> ImportOutcome:
    config = ConfigRepo.load(repo.repo)
    entity, cluster = config.feed(feed), config.cluster("lake")
    policy = import_policy(entity, cluster)
    datasource = config.datasource(policy.datasource)
    fs = HadoopFileSystem(spark)
    endpoint = endpoint_for(datasource, FOR_IMPORT, cluster, fs, alias_reader(spark))
    return run_import(spark, ImportCall.of(config, entity, cluster, policy, datasource, t, force), endpoint,
                      RunContext(fs, run_id=run_id))


def _instance(spark: SparkSession, repo: TransferRepo, feed: str, t: datetime) -> DataFrame:
    return spark.read.parquet(str(repo.data(feed) / f"{t:%Y/%m/%d/%H}"))


def test_a_full_import_publishes_the_table_as_it_is_in_the_feeds_format(
        spark: SparkSession, server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, server, _database(server, f"full_{server.kind}"))
    _orders_table(repo, 1, 50)

    outcome = import_instance(spark, repo, "orders-full", T0)

    published = _instance(spark, repo, "orders-full", T0)
    expected = spark.createDataFrame([(i, f"customer {i}", Decimal(f"{i}.25"), "note") for i in range(1, 51)],
                                     ORDERS + ", note string")
    assert_df_equality(published, expected, ignore_row_order=True, ignore_nullable=True, ignore_metadata=True)
    assert (outcome.read, outcome.rows.column) == (50, None)
    event = Ledger.of(HadoopFileSystem(spark), ConfigRepo.load(repo.repo).cluster("lake")).events("orders-full", T0)
    assert [(e.kind, e.producer, e.run_id) for e in event] == [("published", "import", "run")]


def test_an_incremental_import_reads_the_whole_table_first_then_only_the_rows_past_its_mark(
        spark: SparkSession, server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, server, _database(server, f"incremental_{server.kind}"))
    _orders_table(repo, 1, 100)

    first = import_instance(spark, repo, "orders", T0, run_id="first")
    _add_orders(repo, 101, 130)
    second = import_instance(spark, repo, "orders", T1, run_id="second")
    third = import_instance(spark, repo, "orders", T2, run_id="third")  # nothing new: an empty instance

    assert_df_equality(_instance(spark, repo, "orders", T0), _expected(spark, 1, 100), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert_df_equality(_instance(spark, repo, "orders", T1), _expected(spark, 101, 130), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert _instance(spark, repo, "orders", T2).count() == 0
    assert _instance(spark, repo, "orders", T2).schema.simpleString() == _expected(spark, 1, 1).schema.simpleString()
    assert [(o.rows.after, o.rows.up_to, o.read) for o in (first, second, third)] == [
        (None, "100", 100), ("100", "130", 30), ("130", "130", 0)]
    mark = json.loads((repo.ledger() / "imports" / "orders" / "high-water.json").read_text())
    assert (mark["column"], mark["value"], mark["run_id"]) == ("id", "130", "second")
    assert not (repo.ledger() / "imports" / "orders" / "pending.json").exists()
    assert (repo.data("orders") / "2026/01/01/01/_SUCCESS").is_file()  # the feed's availability flag


def test_an_instance_imported_already_is_skipped_and_a_forced_one_reads_its_rows_again_without_moving_the_mark(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "forced"))
    _orders_table(repo, 1, 10)
    import_instance(spark, repo, "orders", T0, run_id="first")
    _add_orders(repo, 11, 20)

    with pytest.raises(SkippedError, match="was imported by run first .* give --force"):
        import_instance(spark, repo, "orders", T0, run_id="again")
    forced = import_instance(spark, repo, "orders", T0, force=True, run_id="forced")

    assert_df_equality(_instance(spark, repo, "orders", T0), _expected(spark, 1, 10), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert (forced.rows.after, forced.rows.up_to, forced.replaced) == (None, "10", True)
    mark = json.loads((repo.ledger() / "imports" / "orders" / "high-water.json").read_text())
    assert (mark["value"], mark["run_id"]) == ("10", "first")
    next_one = import_instance(spark, repo, "orders", T1, run_id="next")  # the rows added since, once
    assert_df_equality(_instance(spark, repo, "orders", T1), _expected(spark, 11, 20), ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    assert next_one.rows.after == "10"


def test_fields_take_the_columns_an_import_names_and_leave_out_those_it_excludes(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "fields"))
    _orders_table(repo, 1, 3)
    feed = repo.repo / "feeds" / "orders-full.yaml"
    feed.write_text(feed.read_text().replace("        extract: {type: full, mergepolicy: snapshot}\n",
                                             "        extract: {type: full, mergepolicy: snapshot}\n"
                                             "        fields: {excludes: [note, AMOUNT]}\n"))

    import_instance(spark, repo, "orders-full", T0)

    expected = spark.createDataFrame([(i, f"customer {i}") for i in range(1, 4)], "id bigint, customer string")
    assert_df_equality(_instance(spark, repo, "orders-full", T0), expected, ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)


def test_a_value_that_does_not_convert_to_the_declared_type_fails_naming_it_and_publishes_nothing(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "conversion"))
    _orders_table(repo, 1, 3)
    repo.sql("ALTER TABLE orders ALTER COLUMN amount TYPE text")
    repo.sql("UPDATE orders SET amount = 'twelve' WHERE id = 2")

    with pytest.raises(ToolkitError) as failed:
        import_instance(spark, repo, "orders", T0)

    assert failed.value.exit_code == 1
    assert str(failed.value) == (
        "the import of feed 'orders' on cluster 'lake' from table 'orders' of datasource 'shop-db': the value "
        "'twelve' of column 'amount' does not convert to decimal(10,2), the type the feed declares for 'amount'; "
        "correct the feed's column type or the table's data.")
    assert not (repo.data("orders") / "2026/01/01/00").exists()
    assert [p.name for p in (repo.data("orders") / "2026/01/01").iterdir()] == []  # no staging left
    assert not (repo.ledger() / "imports" / "orders" / "high-water.json").exists()
    assert not (repo.ledger() / "imports" / "orders" / "pending.json").exists()
    record = json.loads((repo.ledger() / "imports" / "orders" / "20260101T0000Z.json").read_text())
    assert record["status"] == "FAILED" and "'twelve'" in record["error"]


def test_a_table_that_does_not_exist_is_one_sentence_and_exit_2(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "missing"))

    with pytest.raises(UsageError) as refused:
        import_instance(spark, repo, "orders-full", T0)

    assert str(refused.value) == (
        f"The import of feed 'orders-full' on cluster 'lake' from table 'orders' of datasource 'shop-db': the table "
        f"does not exist in {postgres_server.jdbc_url('missing')}; check import.source.tableName.")
    assert not repo.data("orders-full").exists()


def test_an_import_in_parts_that_names_no_split_column_splits_by_the_first_column_of_the_tables_primary_key(
        spark: SparkSession, server: DatabaseServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "text" if server.kind == "postgres" else "varchar(64)"
    other = transfer_repo(tmp_path / "other", server, _database(server, f"other_key_{server.kind}"))
    other.sql("CREATE TABLE orders (customer varchar(64) primary key, shop bigint)")  # another database's table
    repo = transfer_repo(tmp_path / "mine", server, _database(server, f"by_key_{server.kind}"),
                         full_arguments='num-mappers: "3", fetch-size: "1"')
    repo.sql(f"CREATE TABLE orders (id bigint NOT NULL, shop bigint NOT NULL, customer {text}, "
             "PRIMARY KEY (shop, id))")  # the key's first column is not the table's first, nor first by name
    repo.sql("INSERT INTO orders (id, shop, customer) VALUES "
             + ", ".join(f"({i}, {(i % 3 + 1) * 10}, 'customer {i}')" for i in range(1, 31)))

    outcome = import_instance(spark, repo, "orders-full", T0)

    expected = spark.createDataFrame([(i, (i % 3 + 1) * 10, f"customer {i}") for i in range(1, 31)],
                                     "id bigint, shop bigint, customer string")
    assert_df_equality(_instance(spark, repo, "orders-full", T0), expected, ignore_row_order=True,
                       ignore_nullable=True, ignore_metadata=True)
    parts = sorted(p.name for p in (repo.data("orders-full") / "2026/01/01/00").glob("part-*"))
    assert (outcome.read, len(parts)) == (30, 3), parts  # one file a slice: shop 10, 20 and 30
    assert ("reading table 'orders' in up to 3 slices of its primary key column 'shop' (the import names no "
            "arguments.split-by)") in capsys.readouterr().err


def test_an_import_in_parts_of_a_table_without_a_primary_key_or_with_one_of_text_is_refused_before_it_writes(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "no_key"),
                         full_arguments='num-mappers: "4"')
    repo.sql("CREATE TABLE orders (id bigint, customer text)")
    repo.sql("INSERT INTO orders VALUES (1, 'customer 1')")
    owner = "The import of feed 'orders-full' on cluster 'lake' from table 'orders' of datasource 'shop-db'"

    with pytest.raises(UsageError) as no_key:
        import_instance(spark, repo, "orders-full", T0)
    repo.sql("ALTER TABLE orders ADD PRIMARY KEY (customer)")
    with pytest.raises(UsageError) as text_key:
        import_instance(spark, repo, "orders-full", T0)

    assert no_key.value.exit_code == 2
    assert str(no_key.value) == (
        f"{owner}: it reads the table in 4 parts (arguments.num-mappers) and names no column to split it by, and the "
        "table has no primary key to split it by instead; add arguments.split-by, or set arguments.num-mappers to 1 "
        "to read it in one part.")
    assert str(text_key.value) == (
        f"{owner}: it names no arguments.split-by and the table's primary key starts with 'customer', a column of "
        "type text, which cannot split a read (Spark's JDBC source splits by a number, a date or a timestamp); name "
        "such a column in arguments.split-by, or set arguments.num-mappers to 1.")
    assert not repo.data("orders-full").exists()
    assert not list((repo.ledger() / "imports").glob("orders-full/*T*.json"))  # no record of a run that never began


def test_a_table_feed_is_imported_into_its_partition_only_once_the_rows_are_in_place(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    from toolkit.core.storage.catalog_factory import catalog_for

    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "to_table"))
    _orders_table(repo, 1, 20)
    spark.sql("CREATE DATABASE IF NOT EXISTS shop_imports")
    spark.sql("DROP TABLE IF EXISTS shop_imports.orders")
    spark.sql(f"CREATE TABLE shop_imports.orders (id bigint, customer string, amount decimal(10,2)) USING parquet "
              f"PARTITIONED BY (ds string) LOCATION '{tmp_path / 'warehouse' / 'orders'}'")
    feed = repo.repo / "feeds" / "orders-full.yaml"
    feed.write_text(feed.read_text().replace(
        "locations:\n  data: /data/orders-full/${YEAR}/${MONTH}/${DAY}/${HOUR}\n",
        "table:\n  uri: catalog:shop_imports:orders#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}\n"))
    config = ConfigRepo.load(repo.repo)
    entity, cluster = config.feed("orders-full"), config.cluster("lake")
    policy = import_policy(entity, cluster)
    datasource = config.datasource(policy.datasource)
    fs = HadoopFileSystem(spark)
    endpoint = endpoint_for(datasource, FOR_IMPORT, cluster, fs, alias_reader(spark))
    with catalog_for(spark, None) as catalog:
        outcome = run_import(spark, ImportCall.of(config, entity, cluster, policy, datasource, T0), endpoint,
                             RunContext(fs, run_id="table", catalog=catalog))

    spark.catalog.refreshTable("shop_imports.orders")
    partition = spark.table("shop_imports.orders").where("ds = '2026-01-01-00'").drop("ds")
    assert_df_equality(partition, _expected(spark, 1, 20), ignore_row_order=True, ignore_nullable=True,
                       ignore_metadata=True)  # the note column is not the table's: the table's columns are taken
    assert outcome.read == 20
    tables = spark.sql("SHOW TABLES IN shop_imports").collect()  # a session's temporary views are listed too
    assert [row.tableName for row in tables if not row.isTemporary] == ["orders"]  # no staging table left
    event = Ledger.of(fs, cluster).events("orders-full", T0)
    assert [(e.kind, e.location) for e in event] == [("published", "shop_imports.orders/ds=2026-01-01-00")]


def test_a_failed_import_is_told_to_the_feeds_notification_once(spark: SparkSession, postgres_server: DatabaseServer,
                                                                tmp_path: Path) -> None:
    """A failure of exit 1 (a value that does not convert) reaches the feed's webhook, a real HTTP server on
    loopback; an import that is skipped (imported already) tells no one."""
    from tests.lineage_receiver import lineage_receiver
    from tests.notified_feed import notify_by_webhook
    from toolkit.services.notifications.notifier import Notifier

    repo = transfer_repo(tmp_path, postgres_server, _database(postgres_server, "told"))
    _orders_table(repo, 1, 3)
    repo.sql("ALTER TABLE orders ALTER COLUMN amount TYPE text")
    repo.sql("UPDATE orders SET amount = 'twelve' WHERE id = 2")
    with lineage_receiver("/hook") as hook:
        notify_by_webhook(repo.repo, "lake", "orders", hook.url + "/hook")
        config = ConfigRepo.load(repo.repo)
        entity, cluster = config.feed("orders"), config.cluster("lake")
        policy = import_policy(entity, cluster)
        fs = HadoopFileSystem(spark)
        endpoint = endpoint_for(config.datasource(policy.datasource), FOR_IMPORT, cluster, fs, alias_reader(spark))
        call = ImportCall.of(config, entity, cluster, policy, config.datasource(policy.datasource), T0)
        notifier = Notifier(fs, cluster)
        with pytest.raises(ToolkitError, match="'twelve' of column 'amount' does not convert"):
            run_import(spark, call, endpoint, RunContext(fs, run_id="failing", notifier=notifier))
        repo.sql("UPDATE orders SET amount = '12' WHERE id = 2")
        run_import(spark, call, endpoint, RunContext(fs, run_id="fixed", notifier=notifier))
        with pytest.raises(SkippedError):
            run_import(spark, call, endpoint, RunContext(fs, run_id="again", notifier=notifier))
    [notice] = hook.events
    assert {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id")} == {
        "event": "failed", "kind": "feed", "entity": "orders", "cluster": "lake", "instance": "2026-01-01T00:00Z",
        "status": "FAILED", "run_id": "failing"}
    assert "'twelve'" in notice["error"] and "import" in notice["text"]
    assert notifier.counters() == {"notifications_sent": 1, "notifications_failed": 0}
