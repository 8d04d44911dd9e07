"""Column lineage of SQL workflows (no Spark): OpenLineage's own SQL parser reads the statements with markers for
the `${...}` variables; each output's ColumnLineageDatasetFacet traces its columns through views and CTEs to the
inputs' fields, and gives nothing where the parser cannot tell (rather than a wrong lineage)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.openlineage_schema import validate_facet
from toolkit.services.openlineage.column_lineage import column_lineage
from toolkit.services.openlineage.naming import DatasetName

PROJECT = Path(__file__).resolve().parents[3]
PRODUCER = "https://github.com/feed-toolkit/feed-toolkit"
SCHEMA_URL = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"

HOURLY = DatasetName("file:///var/data/primary", "/data/clicks/hourly")
PAGES = DatasetName("hive://127.0.0.1:9083", "web.pages")
DAILY = DatasetName("file:///var/data/primary", "/data/clicks/daily")
DAILY_TABLE = DatasetName("hive://127.0.0.1:9083", "clicks.daily")


def facet(fields: dict[str, list[tuple[DatasetName, str]]]) -> dict[str, Any]:
    """The JSON object expected for these output columns <- (input dataset, field) pairs."""
    return {
        "_producer": PRODUCER,
        "_schemaURL": SCHEMA_URL,
        "fields": {name: {"inputFields": [{"namespace": dataset.namespace, "name": dataset.name, "field": column,
                                           "transformations": []} for dataset, column in sources]}
                   for name, sources in fields.items()},
        "dataset": [],
    }


def lineage(source: str, **kwargs: Any) -> dict[str, dict[str, Any]]:
    kwargs.setdefault("inputs", {"hourly": HOURLY})
    kwargs.setdefault("outputs", {"daily": DAILY})
    return column_lineage(source, producer=PRODUCER, **kwargs)


# --- the template repo's workflow ---------------------------------------------------------------------------------

ROLLUP = {
    "clicks": [(HOURLY, "clicks")],
    "page": [(HOURLY, "page")],
    "peak_clicks_3h": [(HOURLY, "clicks_3h")],
    "peak_hourly_users": [(HOURLY, "users")],
}


def test_the_template_rollup_traces_both_outputs_through_its_view_to_the_hourly_fields() -> None:
    """`hours_with_clicks` is COUNT(*): the parser traces it to no input field, so it has no entry."""
    source = (PROJECT / "config_repo_template" / "workflows" / "daily_clicks_rollup.sql").read_text()
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE},
                     table_outputs={"daily_table": "clicks.daily"})
    assert result == {"daily": facet(ROLLUP), "daily_table": facet(ROLLUP)}


def test_a_table_output_spelled_as_its_db_table_is_found() -> None:
    source = ("CREATE OR REPLACE TEMPORARY VIEW rollup AS SELECT page, SUM(clicks) AS clicks FROM json.`${hourly}` "
              "GROUP BY page;\n"
              "INSERT OVERWRITE TABLE Clicks.Daily PARTITION (${falcon_output_dataout_partitions}) "
              "SELECT page, clicks FROM rollup")
    result = lineage(source, outputs={"daily_table": DAILY_TABLE}, table_outputs={"daily_table": "clicks.daily"})
    assert result == {"daily_table": facet({"clicks": [(HOURLY, "clicks")], "page": [(HOURLY, "page")]})}


# --- what the parser reads ----------------------------------------------------------------------------------------

def test_a_direct_insert_select_traces_each_column_and_an_expression_to_all_its_fields() -> None:
    source = "INSERT OVERWRITE DIRECTORY '${daily}' USING parquet SELECT a, b + c AS b FROM parquet.`${hourly}`"
    assert lineage(source) == {"daily": facet({"a": [(HOURLY, "a")], "b": [(HOURLY, "b"), (HOURLY, "c")]})}


def test_a_table_input_by_its_variable_by_falcons_names_and_by_its_db_table() -> None:
    query = "SELECT a, b + c AS b FROM {}"
    expected = {"daily_table": facet({"a": [(PAGES, "a")], "b": [(PAGES, "b"), (PAGES, "c")]})}
    for table in ("${pages}", "${falcon_input_database}.${falcon_input_table}", "WEB.pages", "`web`.`pages`"):
        source = ("INSERT OVERWRITE TABLE ${falcon_output_database}.${falcon_output_table} "
                  "PARTITION (${falcon_output_dataout_partitions}) " + query.format(table)
                  + " WHERE ${falcon_input_partition_filter_hive}")
        result = lineage(source, inputs={"pages": PAGES}, outputs={"daily_table": DAILY_TABLE},
                         table_inputs={"pages": "web.pages"}, table_outputs={"daily_table": "clicks.daily"})
        assert result == expected, table


def test_a_directory_output_with_options_or_hives_row_format() -> None:
    expected = {"daily": facet({"a": [(HOURLY, "a")]})}
    for head in ("INSERT OVERWRITE DIRECTORY '${daily}' USING csv OPTIONS ('header' 'true', sep ';')",
                 "INSERT OVERWRITE LOCAL DIRECTORY '${daily}' ROW FORMAT DELIMITED FIELDS TERMINATED BY ','",
                 "INSERT OVERWRITE DIRECTORY USING json OPTIONS (path '${daily}')",
                 "INSERT OVERWRITE DIRECTORY '${daily}' STORED AS ORC"):
        assert lineage(f"{head} SELECT a FROM json.`${{hourly}}`") == expected, head


def test_a_cte_is_resolved_by_the_parser() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json "
              "WITH busy AS (SELECT page, clicks * 2 AS doubled FROM json.`${hourly}` WHERE clicks > 10), "
              "ranked AS (SELECT page AS p, doubled + 1 AS score FROM busy) "
              "SELECT p AS page, score FROM ranked")
    assert lineage(source) == {"daily": facet({"page": [(HOURLY, "page")], "score": [(HOURLY, "clicks")]})}


def test_a_join_of_two_inputs_traces_each_qualified_column_to_its_own_input() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json "
              "SELECT h.page, p.title, h.clicks * p.weight AS weighted "
              "FROM json.`${hourly}` h JOIN ${pages} p ON h.page = p.page")
    result = lineage(source, inputs={"hourly": HOURLY, "pages": PAGES}, table_inputs={"pages": "web.pages"})
    assert result == {"daily": facet({
        "page": [(HOURLY, "page")],
        "title": [(PAGES, "title")],
        "weighted": [(HOURLY, "clicks"), (PAGES, "weight")],
    })}


def test_an_unqualified_column_of_a_join_is_left_out_the_parser_would_guess_its_table() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json "
              "SELECT h.page, title FROM json.`${hourly}` h JOIN ${pages} p ON h.page = p.page")
    result = lineage(source, inputs={"hourly": HOURLY, "pages": PAGES})
    assert result == {"daily": facet({"page": [(HOURLY, "page")]})}


def test_an_aggregate_traces_to_the_aggregated_fields_and_count_star_to_none() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json "
              "SELECT site, SUM(clicks) AS clicks, MAX(users * 2) AS peak, COUNT(*) AS n, "
              "COUNT(DISTINCT page) AS pages, AVG(clicks + errors) AS mix "
              "FROM json.`${hourly}` GROUP BY site HAVING SUM(clicks) > 0")
    assert lineage(source) == {"daily": facet({
        "clicks": [(HOURLY, "clicks")],
        "mix": [(HOURLY, "clicks"), (HOURLY, "errors")],
        "pages": [(HOURLY, "page")],
        "peak": [(HOURLY, "users")],
        "site": [(HOURLY, "site")],
    })}


def test_a_window_function_traces_to_its_argument_partition_and_order() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json "
              "SELECT page, SUM(clicks) OVER (PARTITION BY site ORDER BY hour ROWS 2 PRECEDING) AS c3 "
              "FROM json.`${hourly}`")
    assert lineage(source) == {"daily": facet({
        "c3": [(HOURLY, "clicks"), (HOURLY, "hour"), (HOURLY, "site")], "page": [(HOURLY, "page")]})}


def test_views_chain_and_a_redefined_view_is_read_as_it_was_when_used() -> None:
    source = ("CREATE TEMPORARY VIEW a AS SELECT page, clicks AS c FROM json.`${hourly}`;\n"
              "CREATE OR REPLACE TEMP VIEW b AS SELECT page, c + 1 AS c1 FROM a;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page, c1 FROM b;\n"
              "CREATE OR REPLACE TEMPORARY VIEW b AS SELECT users AS c1 FROM json.`${hourly}`;\n"
              "INSERT INTO TABLE ${daily_table} SELECT c1 FROM b")
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE})
    assert result == {"daily": facet({"c1": [(HOURLY, "clicks")], "page": [(HOURLY, "page")]}),
                      "daily_table": facet({"c1": [(HOURLY, "users")]})}


def test_a_view_column_from_no_input_field_adds_none_to_an_expression_that_uses_it() -> None:
    source = ("CREATE TEMPORARY VIEW v AS SELECT page, COUNT(*) AS n, SUM(clicks) AS s FROM json.`${hourly}` "
              "GROUP BY page;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page, s / n AS share, n FROM v")
    assert lineage(source) == {"daily": facet({"page": [(HOURLY, "page")], "share": [(HOURLY, "clicks")]})}


def test_a_hive_table_over_an_input_location_stands_for_the_input() -> None:
    source = ("CREATE EXTERNAL TABLE IF NOT EXISTS staged (page STRING, clicks INT) "
              "ROW FORMAT SERDE 'org.apache.hive.hcatalog.data.JsonSerDe' LOCATION '${hourly}';\n"
              "INSERT OVERWRITE TABLE ${daily_table} SELECT page, SUM(clicks) AS clicks FROM staged GROUP BY page;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' SELECT * FROM staged")
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE})
    assert result == {"daily_table": facet({"clicks": [(HOURLY, "clicks")], "page": [(HOURLY, "page")]})}


def test_a_scratch_table_filled_twice_keeps_both_sources_and_one_made_like_another_is_unknown() -> None:
    source = ("CREATE TABLE scratch AS SELECT page, clicks FROM json.`${hourly}`;\n"
              "INSERT INTO scratch SELECT title AS page, views AS clicks FROM ${pages};\n"
              "CREATE TABLE copy LIKE scratch;\n"
              "INSERT OVERWRITE TABLE ${daily_table} SELECT page, clicks FROM scratch;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page, clicks FROM copy")
    result = lineage(source, inputs={"hourly": HOURLY, "pages": PAGES},
                     outputs={"daily": DAILY, "daily_table": DAILY_TABLE})
    assert result == {"daily_table": facet({"clicks": [(HOURLY, "clicks"), (PAGES, "views")],
                                            "page": [(HOURLY, "page"), (PAGES, "title")]})}


def test_two_statements_writing_one_output_merge_its_columns() -> None:
    source = ("INSERT INTO TABLE ${daily_table} SELECT a, b FROM ${hourly};\n"
              "INSERT INTO TABLE ${daily_table} SELECT a, c AS b FROM ${pages}")
    result = lineage(source, inputs={"hourly": HOURLY, "pages": PAGES}, outputs={"daily_table": DAILY_TABLE})
    assert result == {"daily_table": facet({"a": [(HOURLY, "a"), (PAGES, "a")],
                                            "b": [(HOURLY, "b"), (PAGES, "c")]})}


def test_select_star_expands_through_a_view_whose_columns_are_known() -> None:
    source = ("CREATE TEMPORARY VIEW v AS SELECT page, clicks + 1 AS c FROM json.`${hourly}`;\n"
              "CREATE TEMPORARY VIEW w AS SELECT DISTINCT * FROM v WHERE c > 2;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT * FROM w x ORDER BY page LIMIT 10")
    assert lineage(source) == {"daily": facet({"c": [(HOURLY, "clicks")], "page": [(HOURLY, "page")]})}


@pytest.mark.parametrize("query", [
    "SELECT * FROM json.`${hourly}`",  # the input's columns are not known
    "SELECT *, clicks AS c FROM v",  # the parser would give `c` only
    "SELECT v.* FROM v JOIN json.`${hourly}` h ON v.page = h.page",
    "SELECT * FROM (SELECT page FROM v) s",  # a star over a subquery: not the view's columns
    "WITH s AS (SELECT * FROM json.`${hourly}`) SELECT page FROM s",
    "SELECT * FROM u",  # u is built with a star over an input: unknown
    "SELECT page FROM u",
])
def test_a_star_that_cannot_be_expanded_gives_the_output_no_facet(query: str) -> None:
    source = ("CREATE TEMPORARY VIEW v AS SELECT page, clicks FROM json.`${hourly}`;\n"
              "CREATE TEMPORARY VIEW u AS SELECT * FROM json.`${hourly}`;\n"
              f"INSERT OVERWRITE DIRECTORY '${{daily}}' USING json {query}")
    assert lineage(source) == {}


# --- what the parser cannot read, or reads wrongly: no facet, never an exception ----------------------------------

@pytest.mark.parametrize("source", [
    "SELEC page FRM json.`${hourly}` INTO '${daily}'",
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page FROM",
    # Spark's view over files: the parser reads no USING, so the view is unknown
    "CREATE TEMPORARY VIEW v USING json OPTIONS (path '${hourly}');\n"
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page FROM v",
    # Hive's multi-insert
    "FROM json.`${hourly}` INSERT OVERWRITE DIRECTORY '${daily}' SELECT page",
    # a view the parser knew, redefined by a statement it cannot read
    "CREATE TEMPORARY VIEW v AS SELECT page FROM json.`${hourly}`;\n"
    "CREATE OR REPLACE TEMPORARY VIEW v USING json OPTIONS (path '${hourly}');\n"
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page FROM v",
    # the parser names the second branch's columns as output columns
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json "
    "SELECT page, clicks FROM json.`${hourly}` UNION ALL SELECT p, c FROM json.`${hourly}`",
    # the parser traces `item` to a column `item` of the input
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json "
    "SELECT page, item FROM json.`${hourly}` LATERAL VIEW explode(items) t AS item",
    # column lists: the parser names the columns by the select list
    "INSERT INTO ${daily} (x, y) SELECT a, b FROM json.`${hourly}`",
    "CREATE TEMPORARY VIEW v (x, y) AS SELECT a, b FROM json.`${hourly}`;\n"
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT x FROM v",
    # an output named by a statement the parser reads as nothing (it might write it)
    "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page FROM json.`${hourly}`;\n"
    "CACHE TABLE c AS SELECT page FROM json.`${daily}`",
    "",
    "-- only a comment",
])
def test_sql_the_parser_cannot_read_or_reads_wrongly_gives_no_facet(source: str) -> None:
    assert lineage(source) == {}


def test_an_unreadable_statement_spoils_only_the_outputs_it_names() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page FROM json.`${hourly}`;\n"
              "ADD JAR /opt/udfs.jar;\n"
              "INSERT OVERWRITE TABLE ${daily_table} SELECT page FROM json.`${hourly}`;\n"
              "MSCK REPAIR TABLE ${daily_table} SYNC PARTITIONS WITH FLAIR")
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE})
    assert result == {"daily": facet({"page": [(HOURLY, "page")]})}


def test_unnamed_expressions_properties_and_tables_that_are_no_input_are_left_out() -> None:
    source = ("INSERT OVERWRITE DIRECTORY '${daily}' USING json "
              "SELECT a, b + c, ${metric} AS m, '${nominalTime}' AS t, upper(d) AS d FROM json.`${hourly}`;\n"
              "INSERT INTO TABLE ${daily_table} SELECT title FROM web.other_pages")
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE})
    assert result == {"daily": facet({"a": [(HOURLY, "a")], "d": [(HOURLY, "d")]})}


def test_an_output_read_back_later_is_traced_through_what_was_written() -> None:
    source = ("INSERT OVERWRITE TABLE ${daily_table} SELECT page, clicks * 2 AS c FROM json.`${hourly}`;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT c AS total FROM ${daily_table}")
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE})
    assert result == {"daily": facet({"total": [(HOURLY, "clicks")]}),
                      "daily_table": facet({"c": [(HOURLY, "clicks")], "page": [(HOURLY, "page")]})}


def test_an_output_without_a_facet_read_back_gives_none_either() -> None:
    source = ("INSERT OVERWRITE TABLE ${daily_table} SELECT page, clicks FROM json.`${hourly}`;\n"
              "INSERT INTO ${daily_table} (page, clicks) SELECT title, views FROM json.`${hourly}`;\n"
              "INSERT OVERWRITE DIRECTORY '${daily}' USING json SELECT page FROM ${daily_table}")
    assert lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE}) == {}


SQL_WORDS = ["SELECT", "FROM", "INSERT", "OVERWRITE", "DIRECTORY", "TABLE", "USING", "json", "WITH", "AS", "(", ")",
             ",", ";", "*", "JOIN", "ON", "=", "UNION", "CREATE", "TEMPORARY", "VIEW", "v", "a", "b", "'", "`", "--",
             "\n", "${hourly}", "${daily}", "${x}", "json.`${hourly}`", "'${daily}'", "GROUP BY", "SUM(a)", "."]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.sampled_from(SQL_WORDS), max_size=30))
def test_any_text_gives_facets_only_for_known_outputs_and_never_raises(words: list[str]) -> None:
    result = lineage(" ".join(words))
    assert set(result) <= {"daily"}
    for value in result.values():
        assert value["fields"] and all(field["inputFields"] for field in value["fields"].values())


# --- the facet is OpenLineage's ------------------------------------------------------------------------------------

def test_the_facets_validate_against_the_spec() -> None:
    source = (PROJECT / "config_repo_template" / "workflows" / "daily_clicks_rollup.sql").read_text()
    result = lineage(source, outputs={"daily": DAILY, "daily_table": DAILY_TABLE},
                     table_outputs={"daily_table": "clicks.daily"})
    assert sorted(result) == ["daily", "daily_table"]
    for value in result.values():
        validate_facet(value)


def test_the_spec_check_rejects_a_facet_without_input_fields() -> None:
    broken = facet({"page": [(HOURLY, "page")]})
    del broken["fields"]["page"]["inputFields"]
    with pytest.raises(AssertionError, match="inputFields"):
        validate_facet(broken)


# --- the module's own promises ---------------------------------------------------------------------------------------

