"""What a workflow is given: an input window as one Hadoop glob, properties with EL evaluated for the instance,
Falcon's property names (with the table partition filters of the three dialects), and the SQL variables."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.context import (
    TableInput,
    TableOutput,
    WorkflowContext,
    evaluate_properties,
    falcon_properties,
    path_glob,
)

UTC = timezone.utc
T = datetime(2026, 11, 21, 10, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


# -- path_glob ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("paths", "glob"), [
    ((), ""),
    (("file:///x/a/2026/11/21/10",), "file:///x/a/2026/11/21/10"),
    (("/a/00", "/a/01"), "/a/{00,01}"),
    (("/a/2026/11/21/08", "/a/2026/11/21/09", "/a/2026/11/21/10"), "/a/2026/11/21/{08,09,10}"),
    (("/a/2026/11/20/23", "/a/2026/11/21/00"), "/a/2026/11/{20/23,21/00}"),
    (("/a/2026/12/31/23", "/a/2027/01/01/00"), "/a/{2026/12/31/23,2027/01/01/00}"),
    (("file:///x/d/b1/00", "file:///x/d/b10/00"), "file:///x/d/{b1/00,b10/00}"),  # b1 is no folder of b10
    (("/a/1", "/b/2"), "/{a/1,b/2}"),
])
def test_path_glob(paths: tuple[str, ...], glob: str) -> None:
    assert path_glob(paths) == glob


# -- evaluate_properties ------------------------------------------------------------------------------------


def test_el_in_property_values_is_evaluated_for_the_instance() -> None:
    properties = {"day": "${today(0,0)}", "hour": "${now(0,0)}", "path": "/out/${formatTime(now(0,0),'yyyy/MM')}/x",
                  "two": "${now(-1,0)}..${now(0,0)}", "plain": "no EL", "offset": "${dateOffset(now(0,0),1,'DAY')}"}
    assert evaluate_properties(properties, T, ZoneInfo("UTC"), "process 'p'") == {
        "day": "2026-11-21T00:00Z", "hour": "2026-11-21T10:00Z", "path": "/out/2026/11/x",
        "two": "2026-11-21T09:00Z..2026-11-21T10:00Z", "plain": "no EL", "offset": "2026-11-22T10:00Z",
    }


def test_a_literal_time_in_a_property_as_falcon_writes_it() -> None:
    properties = {"year": '${formatTime("2016-02-01T10:59Z", "yyyy")}',
                  "next": "${dateOffset('2016-02-01T10:59Z',1,'DAY')}"}
    assert evaluate_properties(properties, T, ZoneInfo("UTC"), "process 'p'") == {
        "year": "2016", "next": "2016-02-02T10:59Z"}
    with pytest.raises(UsageError) as raised:
        evaluate_properties({"year": "${formatTime('2016-02-30T10:59Z', 'yyyy')}"}, T, ZoneInfo("UTC"), "process 'p'")
    assert str(raised.value).startswith("The property 'year' of process 'p' cannot be evaluated: ")
    assert "'2016-02-30T10:59Z', which is no time" in str(raised.value)


def test_el_is_evaluated_in_the_given_zone() -> None:
    # midnight of 21 November in Berlin is 23:00 UTC the day before
    assert evaluate_properties({"day": "${today(0,0)}"}, T, BERLIN, "process 'p'") == {"day": "2026-11-20T23:00Z"}


def test_spark_and_hadoop_variables_are_kept_as_written() -> None:
    properties = {"a": "${spark.x}", "b": "${hadoop.tmp.dir}/x", "c": "${env:HOME}", "d": "${now(0,0)} ${spark.y}"}
    assert evaluate_properties(properties, T, ZoneInfo("UTC"), "process 'p'") == {
        "a": "${spark.x}", "b": "${hadoop.tmp.dir}/x", "c": "${env:HOME}", "d": "2026-11-21T10:00Z ${spark.y}",
    }


def test_el_that_cannot_be_evaluated_names_the_property_and_its_owner() -> None:
    with pytest.raises(UsageError) as raised:
        evaluate_properties({"ok": "${now(0,0)}", "newest": "${latest(0)}"}, T, ZoneInfo("UTC"), "process 'p'")
    message = str(raised.value)
    assert message.startswith("The property 'newest' of process 'p' cannot be evaluated: ")
    assert "latest()" in message
    assert raised.value.exit_code == 2


@pytest.mark.parametrize("value", ["${nwo(0,0)}", "${now(1)}"])
def test_a_bad_el_function_names_the_property(value: str) -> None:
    with pytest.raises(UsageError) as raised:
        evaluate_properties({"when": value}, T, ZoneInfo("UTC"), "process 'p'")
    assert "The property 'when' of process 'p'" in str(raised.value)


# -- Falcon's names, tables ---------------------------------------------------------------------------------

DAYS = TableInput("web", "visits", ({"ds": "2026-11-20"}, {"ds": "2026-11-21"}))
TWO_KEYS = TableInput("web", "visits", ({"ds": "2026-11-21", "region": "eu"},))


@pytest.mark.parametrize(("table", "dialect", "text"), [
    (DAYS, "hive", "(ds='2026-11-20') or (ds='2026-11-21')"),
    (DAYS, "pig", "(ds=='2026-11-20') or (ds=='2026-11-21')"),
    (DAYS, "java", '(ds="2026-11-20") or (ds="2026-11-21")'),
    (TWO_KEYS, "hive", "(ds='2026-11-21' and region='eu')"),
    (TWO_KEYS, "pig", "(ds=='2026-11-21' and region=='eu')"),
    (TWO_KEYS, "java", '(ds="2026-11-21" and region="eu")'),
    (TableInput("web", "visits", ()), "hive", "(false)"),
])
def test_partition_filter(table: TableInput, dialect: str, text: str) -> None:
    assert table.partition_filter(dialect) == text


def test_falcon_properties_of_file_inputs_and_outputs() -> None:
    inputs = {"clicks": ("file:///x/data/clicks/2026/11/21/09", "file:///x/data/clicks/2026/11/21/10")}
    outputs = {"summary": "file:///x/data/summary/2026/11/21/.10.toolkit-r-1"}
    assert falcon_properties(inputs, outputs, datetime(2026, 11, 21, 10, 5, tzinfo=UTC)) == {
        "nominalTime": "2026-11-21-10-05",
        "clicks": "file:///x/data/clicks/2026/11/21/09,file:///x/data/clicks/2026/11/21/10",
        "summary": "file:///x/data/summary/2026/11/21/.10.toolkit-r-1",
    }


def test_falcon_properties_of_tables_name_the_first_of_each() -> None:
    inputs = {"visits": DAYS, "other": TableInput("db2", "t2", ({"ds": "x"},))}
    outputs = {"daily": TableOutput("web", "daily_visits", {"ds": "2026-11-21", "region": "eu"}),
               "more": TableOutput("db3", "t3", {"ds": "y"})}
    assert falcon_properties(inputs, outputs, T) == {
        "nominalTime": "2026-11-21-10-00",
        "visits": "web.visits",
        "other": "db2.t2",
        "falcon_input_database": "web",
        "falcon_input_table": "visits",
        "falcon_input_partition_filter_hive": "(ds='2026-11-20') or (ds='2026-11-21')",
        "falcon_input_partition_filter_pig": "(ds=='2026-11-20') or (ds=='2026-11-21')",
        "falcon_input_partition_filter_java": '(ds="2026-11-20") or (ds="2026-11-21")',
        "daily": "web.daily_visits",
        "more": "db3.t3",
        "falcon_output_database": "web",
        "falcon_output_table": "daily_visits",
        "falcon_output_dataout_partitions": "ds='2026-11-21',region='eu'",
    }


def test_sql_variables_of_a_context() -> None:
    ctx = WorkflowContext(
        process="p", cluster="primary", nominal_time=T, run_id="r", attempt=1,
        inputs={"hourly": ("/d/2026/11/20/23", "/d/2026/11/21/00"), "visits": DAYS, "none": ()},
        outputs={"daily": "/o/.21.toolkit-r-1", "table": TableOutput("web", "t", {"ds": "x"})},
        properties={"hourly": "overridden by the input", "queue": "etl"},
    )
    assert ctx.variables() == {"hourly": "/d/2026/11/{20/23,21/00}", "visits": "web.visits", "none": "",
                               "daily": "/o/.21.toolkit-r-1", "table": "web.t", "queue": "etl"}
    with pytest.raises(TypeError):
        ctx.properties["queue"] = "x"  # type: ignore[index]
