"""The SQL the import and export send besides Spark's own, by dialect (toolkit/storage/jdbc/): quoting, the
high-water mark's text and comparisons, the staging table, each load; and the endpoint's URL as messages show it
and as Spark is given it."""

from __future__ import annotations

import pytest

from toolkit.database_export.loading import (
    ExportedInstance,
    create_exports_table,
    exports_table,
    find_export,
    load_statements,
    record_export,
    update_keys,
)
from toolkit.entities.model import LoadType
from toolkit.errors import UsageError
from toolkit.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.storage.jdbc.registry import dialect_for, dialects

POSTGRES, MYSQL, GENERIC = dialect_for("postgres"), dialect_for("mariadb"), dialect_for("oracle")


def test_every_datasource_type_has_a_dialect_and_the_modules_name_theirs() -> None:
    assert sorted(dialects()) == ["generic", "mysql", "postgres"]
    assert [dialect_for(kind).name for kind in ("postgres", "mysql", "mariadb", "hsql", "teradata", "generic")] == [
        "postgres", "mysql", "mysql", "generic", "generic", "generic"]


def test_names_are_quoted_each_part_and_a_quote_inside_doubled() -> None:
    assert POSTGRES.table('sales.order"s') == '"sales"."order""s"'
    assert MYSQL.table("sales.order`s") == "`sales`.`order``s`"
    assert MYSQL.string("it's a \\ path") == "'it''s a \\\\ path'"
    assert POSTGRES.string("it's a \\ path") == "'it''s a \\ path'"


def test_the_high_water_mark_is_read_as_the_databases_text_and_compared_as_a_literal() -> None:
    assert POSTGRES.largest_as_text("updated at") == 'CAST(MAX("updated at") AS TEXT)'
    assert MYSQL.largest_as_text("id") == "CAST(MAX(`id`) AS CHAR)"
    assert GENERIC.largest_as_text("id") == 'CAST(MAX("id") AS VARCHAR(4000))'
    assert POSTGRES.after("ts", "2026-01-01 10:00:00.123456") == "\"ts\" > '2026-01-01 10:00:00.123456'"
    assert MYSQL.up_to("id", "100") == "`id` <= '100'"


@pytest.mark.parametrize(("load", "keys", "expected"), [
    (LoadType.SNAPSHOT, (), ['DELETE FROM "t"', 'INSERT INTO "t" ("a", "b") SELECT "a", "b" FROM "s"']),
    (LoadType.ALLOW_INSERT, (), ['INSERT INTO "t" ("a", "b") SELECT "a", "b" FROM "s"']),
    (LoadType.ALLOW_INSERT, ("a",), [
        'UPDATE "t" AS d SET "b" = s."b" FROM "s" AS s WHERE d."a" = s."a"',
        'INSERT INTO "t" ("a", "b") SELECT s."a", s."b" FROM "s" s WHERE NOT EXISTS (SELECT 1 FROM "t" d WHERE '
        'd."a" = s."a")']),
    (LoadType.UPDATE_ONLY, ("a",), ['UPDATE "t" AS d SET "b" = s."b" FROM "s" AS s WHERE d."a" = s."a"']),
])
def test_each_load_type_is_its_statements_in_postgres(load: LoadType, keys: tuple[str, ...],
                                                       expected: list[str]) -> None:
    assert load_statements(POSTGRES, load, "t", "s", ["a", "b"], keys) == expected


def test_mysql_and_ansi_update_the_matching_rows_their_own_way() -> None:
    assert load_statements(MYSQL, LoadType.UPDATE_ONLY, "t", "s", ["a", "b"], ["a"]) == [
        "UPDATE `t` AS d JOIN `s` AS s ON d.`a` = s.`a` SET d.`b` = s.`b`"]
    assert load_statements(GENERIC, LoadType.UPDATE_ONLY, "t", "s", ["a", "b"], ["a"]) == [
        'UPDATE "t" SET "b" = (SELECT s."b" FROM "s" s WHERE s."a" = "t"."a") WHERE EXISTS (SELECT 1 FROM "s" s '
        'WHERE s."a" = "t"."a")']
    assert POSTGRES.create_like("s", "x.t") == 'CREATE TABLE "s" (LIKE "x"."t" INCLUDING DEFAULTS)'
    assert MYSQL.create_like("s", "t") == "CREATE TABLE `s` LIKE `t`"
    assert GENERIC.create_like("s", "t") == 'CREATE TABLE "s" AS SELECT * FROM "t" WHERE 1 = 0'


def test_the_exports_table_lives_beside_the_target_and_holds_one_row_per_run() -> None:
    assert exports_table("daily") == "feed_toolkit_exports"
    assert exports_table("reports.daily") == "reports.feed_toolkit_exports"
    instance = ExportedInstance("totals", "lake", "2026-01-01T00:00Z", "run1")
    assert record_export(POSTGRES, "feed_toolkit_exports", instance, 12) == (
        "INSERT INTO \"feed_toolkit_exports\" (feed, cluster, instance, run_id, rows_loaded) VALUES ('totals', "
        "'lake', '2026-01-01T00:00Z', 'run1', 12)")
    assert find_export(POSTGRES, "feed_toolkit_exports", instance).endswith(
        "WHERE feed = 'totals' AND cluster = 'lake' AND instance = '2026-01-01T00:00Z' AND run_id = 'run1'")
    assert "PRIMARY KEY (feed, cluster, instance, run_id)" in create_exports_table(MYSQL, "feed_toolkit_exports")


def test_update_keys_are_sqoops_comma_separated_columns_and_updateonly_needs_them() -> None:
    assert update_keys({"update-key": " day , region"}, LoadType.ALLOW_INSERT, "x") == ("day", "region")
    assert update_keys({}, LoadType.ALLOW_INSERT, "x") == ()
    with pytest.raises(UsageError, match="x is updateonly but names no arguments.update-key"):
        update_keys({}, LoadType.UPDATE_ONLY, "x")


def _endpoint(url: str, kind: str = "postgres") -> JdbcEndpoint:
    return JdbcEndpoint(url=url, user="etl", password="s3cret", driver_class="org.postgresql.Driver",
                        jars=("/usr/share/java/postgresql.jar",), dialect=dialect_for(kind))


def test_the_password_is_in_no_repr_and_masked_in_the_url_messages_show() -> None:
    endpoint = _endpoint("jdbc:postgresql://db:5432/sales?user=etl&password=s3cret&ssl=true")
    assert "s3cret" not in repr(endpoint)
    assert endpoint.shown_url == "jdbc:postgresql://db:5432/sales?user=etl&password=***&ssl=true"
    assert _endpoint("jdbc:sqlserver://db;PWD=s3cret;db=x").shown_url == "jdbc:sqlserver://db;PWD=***;db=x"
    assert (endpoint.host_and_port, endpoint.database) == (("db", "5432"), "sales")


def test_spark_is_given_mariadbs_url_as_mysqls_so_that_it_picks_its_mysql_dialect() -> None:
    options = _endpoint("jdbc:mariadb://db:3306/shop", "mariadb").spark_options()
    assert (options["url"], options["permitMysqlScheme"], options["password"]) == (
        "jdbc:mysql://db:3306/shop", "true", "s3cret")
    assert _endpoint("jdbc:postgresql://db/shop").spark_options()["url"] == "jdbc:postgresql://db/shop"
    with pytest.raises(ValueError, match="is not a JDBC URL"):
        _endpoint("postgresql://db/shop")
