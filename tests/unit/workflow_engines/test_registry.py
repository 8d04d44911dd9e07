"""The workflow engines' registry: one module an engine, the schema's enum equal to it, and each engine's
preparer found by the name its description gives."""

from __future__ import annotations

import pytest

from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.schemas import schema
from toolkit.errors import ToolkitError
from toolkit.extensions.workflow_engines.engine import WorkflowEngine, WorkflowForm
from toolkit.extensions.workflow_engines.preparation import preparer_of
from toolkit.extensions.workflow_engines.registry import engine_named, engines


def test_the_schemas_enum_names_exactly_the_registered_engines_in_its_order() -> None:
    enum = schema(Kind.PROCESS)["properties"]["workflow"]["properties"]["engine"]["enum"]
    assert list(engines()) == enum


def test_the_engines_and_their_facts() -> None:
    facts = {name: (engine.form, engine.hive, engine.oozie) for name, engine in engines().items()
             if name in ("pyspark", "spark-sql", "hive", "oozie", "pig", "spark")}
    assert facts == {
        "pyspark": (WorkflowForm.FILE, False, False),
        "spark-sql": (WorkflowForm.FILE, False, False),
        "hive": (WorkflowForm.FILE, True, False),
        "oozie": (WorkflowForm.FOLDER, False, True),
        "pig": (WorkflowForm.FILE, False, True),
        "spark": (WorkflowForm.FOLDER, False, False),
    }


@pytest.mark.parametrize("name", ["pyspark", "spark-sql", "hive", "spark", "oozie", "pig"])
def test_each_engine_names_a_preparer_that_imports_without_spark(name: str) -> None:
    assert callable(preparer_of(engines()[name]))


def test_an_unknown_name_is_a_toolkit_error_that_lists_the_engines() -> None:
    with pytest.raises(ToolkitError, match="'shell' is not one of this toolkit's: pyspark, spark-sql, hive"):
        engine_named("shell")


def test_a_description_is_checked_where_it_is_built() -> None:
    with pytest.raises(ValueError, match="write it as 'package.module:function'"):
        WorkflowEngine(name="shell", prepare="a.b.c")


def test_a_preparer_name_that_is_no_function_is_a_toolkit_error() -> None:
    with pytest.raises(ToolkitError, match="is no function"):
        preparer_of(WorkflowEngine(name="shell", prepare="toolkit.extensions.workflow_engines.engine:_FUNCTION"))
