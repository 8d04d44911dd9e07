"""The engines that run a workflow file in the entrypoint's own SparkSession, by the name a process gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkit.errors import ToolkitError
from toolkit.process_runner.context import WorkflowContext
from toolkit.process_runner.engines import pyspark_engine, sql_engine

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Engine = Callable[["SparkSession", WorkflowContext, str, str], None]

_ENGINES: dict[str, Engine] = {"pyspark": pyspark_engine.run_python, "spark-sql": sql_engine.run_sql,
                               "hive": sql_engine.run_sql}


def engine_for(name: str) -> Engine:
    """The runner of an engine (`pyspark`, `spark-sql`, `hive`); the source text and its name are passed in."""
    if name not in _ENGINES:
        raise ToolkitError(f"The workflow engine '{name}' cannot run in process.py: use pyspark, spark-sql or hive.")
    return _ENGINES[name]
