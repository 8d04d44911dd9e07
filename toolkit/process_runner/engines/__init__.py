"""Workflow engines: each runs one kind of workflow file in the entrypoint's own SparkSession.

`pyspark` runs a Python file's `run(spark, ctx)`; `spark-sql` and `hive` run a SQL file's statements in
order with `${name}` substituted. Falcon's `spark` engine runs no file in this session: its application gets its
own spark-submit (`spark_submit_engine`). A failure of the workflow is a `WorkflowError`: one sentence, retried
by the process's policy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkit.errors import ToolkitError
from toolkit.process_runner.context import WorkflowContext

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class WorkflowError(ToolkitError):
    """The workflow failed (exit 1 once the retries are spent); the message says where and why."""


Engine = Callable[["SparkSession", WorkflowContext, str, str], None]


def engine_for(name: str) -> Engine:
    """The runner of an engine (`pyspark`, `spark-sql`, `hive`); the source text and its name are passed in."""
    from toolkit.process_runner.engines import pyspark_engine, sql_engine

    engines: dict[str, Engine] = {"pyspark": pyspark_engine.run_python, "spark-sql": sql_engine.run_sql,
                                  "hive": sql_engine.run_sql}
    if name not in engines:
        raise ToolkitError(f"The workflow engine '{name}' cannot run in process.py: use pyspark, spark-sql or hive.")
    return engines[name]
