"""The SQL the import and export send besides Spark's own, by dialect (toolkit/core/storage/jdbc/): quoting, the
high-water mark's text and comparisons, the staging table, each load, the exports table; and the endpoint's URL as
messages show it and as Spark is given it. The standard SQL of the generic dialect runs on a real Derby in
tests/integration/database_transfers/test_standard_sql.py; Oracle's is checked here on its text only (no Oracle
server here)."""

from __future__ import annotations

import re

import pytest

from toolkit.actions.database_export.loading import (
    ExportedInstance,
    create_exports_table,
    exports_table,
    find_export,
    load_statements,
    record_export,
    update_keys,
)
from toolkit.core.entities.model import LoadType
from toolkit.core.storage.jdbc.dialect import TableColumn
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.jdbc.registry import dialect_for, dialects
from toolkit.errors import UsageError

POSTGRES, MYSQL, GENERIC = dialect_for("postgres"), dialect_for("mariadb"), dialect_for("generic")
ORACLE, NETEZZA = dialect_for("oracle"), dialect_for("netezza")
# Columns as drivers describe them: java.sql.Types BIGINT, DECIMAL, DOUBLE, REAL, TIMESTAMP, VARCHAR.
ID, AMOUNT = TableColumn("ID", -5, "BIGINT"), TableColumn("AMOUNT", 3, "DECIMAL")
RATIO, SHARE = TableColumn("RATIO", 8, "DOUBLE"), TableColumn("share", 7, "float4")
UPDATED, CODE = TableColumn("updated at", 93, "TIMESTAMP"), TableColumn("code", 12, "VARCHAR")


def test_every_datasource_type_has_a_dialect_and_the_modules_name_theirs() -> None:
    assert sorted(dialects()) == ["generic", "mysql", "netezza", "oracle", "postgres"]
    kinds = ("postgres", "mysql", "mariadb", "oracle", "hsql", "db2", "netezza", "teradata", "generic")
    assert [dialect_for(kind).name for kind in kinds] == [
        "postgres", "mysql", "mysql", "oracle", "generic", "generic", "netezza", "generic", "generic"]


def test_names_are_quoted_each_part_and_a_quote_inside_doubled() -> None:
    assert POSTGRES.table('sales.order"s') == '"sales"."order""s"'
    assert MYSQL.table("sales.order`s") == "`sales`.`order``s`"
    assert MYSQL.string("it's a \\ path") == "'it''s a \\\\ path'"
    assert POSTGRES.string("it's a \\ path") == "'it''s a \\ path'"


def test_the_high_water_mark_is_read_as_the_databases_text_a_number_as_it_is() -> None:
    assert POSTGRES.largest_as_text(UPDATED) == 'CAST(MAX("updated at") AS TEXT)'
    assert MYSQL.largest_as_text(CODE) == "CAST(MAX(`code`) AS CHAR)"
    assert GENERIC.largest_as_text(UPDATED) == 'CAST(MAX("updated at") AS VARCHAR(4000))'
    assert ORACLE.largest_as_text(UPDATED) == 'CAST(MAX("updated at") AS VARCHAR2(4000))'
    # Derby casts no number to VARCHAR ("Cannot convert types 'BIGINT' to 'VARCHAR'"): its driver's text is exact
    assert [dialect.largest_as_text(ID) for dialect in (GENERIC, POSTGRES, MYSQL)] == [
        'MAX("ID")', 'MAX("ID")', "MAX(`ID`)"]
    assert GENERIC.largest_as_text(RATIO) == 'MAX("RATIO")'


def test_the_high_water_mark_is_compared_as_a_literal_of_the_columns_own_type() -> None:
    # Derby and DB2 compare no number with a string; MySQL compares the two as doubles (no two BIGINTs past 2^53
    # told apart): an exact number is a number
    assert GENERIC.after(ID, "100") == '"ID" > 100'
    assert MYSQL.up_to(ID, "9007199254740993") == "`ID` <= 9007199254740993"
    assert POSTGRES.after(AMOUNT, "1E+3") == '"AMOUNT" > 1000'
    assert GENERIC.after(AMOUNT, "-10.50") == '"AMOUNT" > -10.50'
    assert GENERIC.after(ID, "1; DROP TABLE x") == "\"ID\" > '1; DROP TABLE x'"  # not a number: a string literal
    # an approximate number cast from its text to the column's type (MySQL: compared with the text, as before)
    assert GENERIC.up_to(RATIO, "0.1") == "\"RATIO\" <= CAST('0.1' AS DOUBLE)"
    assert POSTGRES.after(SHARE, "0.1") == "\"share\" > CAST('0.1' AS float4)"
    assert MYSQL.after(SHARE, "0.1") == "`share` > '0.1'"
    # another value as a string, which the database reads as the column's type
    assert POSTGRES.after(UPDATED, "2026-01-01 10:00:00.123456") == "\"updated at\" > '2026-01-01 10:00:00.123456'"
    assert GENERIC.up_to(CODE, "it's") == "\"code\" <= 'it''s'"


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


def test_a_staging_table_is_made_by_standard_sqls_with_no_data_where_the_database_has_it() -> None:
    # Derby, DB2, HSQLDB and Teradata refuse `AS SELECT ... WHERE 1 = 0` without WITH NO DATA
    assert GENERIC.create_like("s", "x.t") == 'CREATE TABLE "s" AS (SELECT * FROM "x"."t") WITH NO DATA'
    assert ORACLE.create_like("s", "t") == 'CREATE TABLE "s" AS SELECT * FROM "t" WHERE 1 = 0'
    assert NETEZZA.create_like("s", "t") == 'CREATE TABLE "s" AS SELECT * FROM "t" WHERE 1 = 0'


def test_the_exports_table_lives_beside_the_target_and_holds_one_row_per_run() -> None:
    assert exports_table("daily") == "feed_toolkit_exports"
    assert exports_table("reports.daily") == "reports.feed_toolkit_exports"
    instance = ExportedInstance("totals", "lake", "2026-01-01T00:00Z", "run1")
    assert record_export(POSTGRES, "feed_toolkit_exports", instance, 12) == (
        'INSERT INTO "feed_toolkit_exports" ("feed", "cluster", "instance", "run_id", "rows_loaded") VALUES '
        "('totals', 'lake', '2026-01-01T00:00Z', 'run1', 12)")
    assert find_export(POSTGRES, "feed_toolkit_exports", instance).endswith(
        "WHERE \"feed\" = 'totals' AND \"cluster\" = 'lake' AND \"instance\" = '2026-01-01T00:00Z' AND "
        "\"run_id\" = 'run1'")
    assert "PRIMARY KEY (`feed`, `cluster`, `instance`, `run_id`)" in create_exports_table(MYSQL,
                                                                                          "feed_toolkit_exports")


def test_the_exports_table_of_postgres_and_mariadb_keeps_its_columns_and_types() -> None:
    # quoted as each stores an unquoted name: the same table as one made by the DDL without quotes
    assert create_exports_table(POSTGRES, "feed_toolkit_exports") == (
        'CREATE TABLE "feed_toolkit_exports" ("feed" VARCHAR(128) NOT NULL, "cluster" VARCHAR(64) NOT NULL, '
        '"instance" VARCHAR(17) NOT NULL, "run_id" VARCHAR(64) NOT NULL, "rows_loaded" BIGINT NOT NULL, '
        'PRIMARY KEY ("feed", "cluster", "instance", "run_id"))')
    assert create_exports_table(MYSQL, "feed_toolkit_exports") == (
        "CREATE TABLE `feed_toolkit_exports` (`feed` VARCHAR(128) NOT NULL, `cluster` VARCHAR(64) NOT NULL, "
        "`instance` VARCHAR(17) NOT NULL, `run_id` VARCHAR(64) NOT NULL, `rows_loaded` BIGINT NOT NULL, "
        "PRIMARY KEY (`feed`, `cluster`, `instance`, `run_id`))")


def _unquoted_words(sql: str) -> list[str]:
    """The words of `sql` outside quoted names and string literals, upper-cased."""
    return [word.upper() for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", re.sub(r'"[^"]*"|\'[^\']*\'', " ", sql))]


def test_oracle_exports_table_on_paper_no_oracle_server_here_its_own_types_and_no_reserved_word_as_a_name() -> None:
    instance = ExportedInstance("totals", "lake", "2026-01-01T00:00Z", "run1")
    ddl = create_exports_table(ORACLE, "reports.feed_toolkit_exports")
    assert ddl == (
        'CREATE TABLE "reports"."feed_toolkit_exports" ("FEED" VARCHAR2(128) NOT NULL, "CLUSTER" VARCHAR2(64) NOT '
        'NULL, "INSTANCE" VARCHAR2(17) NOT NULL, "RUN_ID" VARCHAR2(64) NOT NULL, "ROWS_LOADED" NUMBER(19) NOT NULL, '
        'PRIMARY KEY ("FEED", "CLUSTER", "INSTANCE", "RUN_ID"))')
    statements = [ddl, record_export(ORACLE, "feed_toolkit_exports", instance, 12),
                  find_export(ORACLE, "feed_toolkit_exports", instance)]
    # outside quotes only the statements' keywords and Oracle's types: every name quoted, so CLUSTER (a word Oracle
    # reserves) is a name; no BIGINT (Oracle has none), no VARCHAR (a synonym Oracle says not to use)
    keywords = {"CREATE", "TABLE", "NOT", "NULL", "PRIMARY", "KEY", "INSERT", "INTO", "VALUES", "SELECT", "FROM",
                "WHERE", "AND"}
    for sql in statements:
        assert set(_unquoted_words(sql)) <= keywords | {"VARCHAR2", "NUMBER"}, sql
    assert statements[1] == (
        'INSERT INTO "feed_toolkit_exports" ("FEED", "CLUSTER", "INSTANCE", "RUN_ID", "ROWS_LOADED") VALUES '
        "('totals', 'lake', '2026-01-01T00:00Z', 'run1', 12)")
    assert statements[2] == (
        'SELECT "ROWS_LOADED" FROM "feed_toolkit_exports" WHERE "FEED" = \'totals\' AND "CLUSTER" = \'lake\' AND '
        '"INSTANCE" = \'2026-01-01T00:00Z\' AND "RUN_ID" = \'run1\'')


def test_oracle_staging_load_and_mark_on_paper_no_oracle_server_here() -> None:
    # Oracle's CREATE TABLE AS has no WITH NO DATA, and takes no AS before a table alias
    assert ORACLE.create_like("s", "t") == 'CREATE TABLE "s" AS SELECT * FROM "t" WHERE 1 = 0'
    statements = load_statements(ORACLE, LoadType.ALLOW_INSERT, "T", "S", ["A", "B"], ["A"])
    assert statements == [
        'UPDATE "T" SET "B" = (SELECT s."B" FROM "S" s WHERE s."A" = "T"."A") WHERE EXISTS (SELECT 1 FROM "S" s '
        'WHERE s."A" = "T"."A")',
        'INSERT INTO "T" ("A", "B") SELECT s."A", s."B" FROM "S" s WHERE NOT EXISTS (SELECT 1 FROM "T" d WHERE '
        'd."A" = s."A")']
    assert not any(re.search(r"\bAS [a-z]\b", sql) for sql in statements)
    assert ORACLE.largest_as_text(TableColumn("ID", 2, "NUMBER")) == 'MAX("ID")'  # NUMBER is NUMERIC to the driver
    assert ORACLE.after(TableColumn("ID", 2, "NUMBER"), "130") == '"ID" > 130'


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
