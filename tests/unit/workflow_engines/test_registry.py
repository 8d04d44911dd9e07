"""The workflow engines' registry: one module an engine, the schema's enum equal to it, and each runnable engine's
preparer found by the name its description gives."""

from __future__ import annotations

import pytest

from toolkit.entities.kinds import Kind
from toolkit.entities.schemas import schema
from toolkit.errors import ToolkitError
from toolkit.workflow_engines.engine import WorkflowEngine, WorkflowForm
from toolkit.workflow_engines.preparation import preparer_of
from toolkit.workflow_engines.registry import engine_named, engines, runnable_names


def test_the_schemas_enum_names_exactly_the_registered_engines_in_its_order() -> None:
    enum = schema(Kind.PROCESS)["properties"]["workflow"]["properties"]["engine"]["enum"]
    assert list(engines()) == enum


def test_the_engines_and_their_facts() -> None:
    facts = {name: (engine.runnable, engine.form, engine.hive) for name, engine in engines().items()
             if name in ("pyspark", "spark-sql", "hive", "oozie", "pig", "spark")}
    assert facts == {
        "pyspark": (True, WorkflowForm.FILE, False),
        "spark-sql": (True, WorkflowForm.FILE, False),
        "hive": (True, WorkflowForm.FILE, True),
        "oozie": (False, WorkflowForm.FOLDER, False),
        "pig": (False, WorkflowForm.FILE, False),
        "spark": (True, WorkflowForm.FOLDER, False),
    }
    runnable = [name for name, engine in engines().items() if engine.runnable]
    assert runnable[:4] == ["pyspark", "spark-sql", "hive", "spark"]
    assert runnable_names() == f"{', '.join(runnable[:-1])} and {runnable[-1]}"


@pytest.mark.parametrize("name", ["pyspark", "spark-sql", "hive", "spark"])
def test_each_runnable_engine_names_a_preparer_that_imports_without_spark(name: str) -> None:
    assert callable(preparer_of(engines()[name]))


def test_an_engine_for_migration_says_how_to_port_and_has_no_preparer() -> None:
    oozie = engine_named("oozie")
    assert oozie.port_to is not None and "PySpark file" in oozie.port_to
    with pytest.raises(ToolkitError, match="migration only"):
        preparer_of(oozie)


def test_an_unknown_name_is_a_toolkit_error_that_lists_the_engines() -> None:
    with pytest.raises(ToolkitError, match="'shell' is not one of this toolkit's: pyspark, spark-sql, hive"):
        engine_named("shell")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "either prepare workflows or say how to port"),
    ({"prepare": "a.b:c", "port_to": "x"}, "either prepare workflows or say how to port"),
    ({"prepare": "a.b.c"}, "write it as 'package.module:function'"),
])
def test_a_description_is_checked_where_it_is_built(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        WorkflowEngine(name="shell", **kwargs)


def test_a_preparer_name_that_is_no_function_is_a_toolkit_error() -> None:
    with pytest.raises(ToolkitError, match="is no function"):
        preparer_of(WorkflowEngine(name="shell", prepare="toolkit.workflow_engines.engine:_FUNCTION"))
