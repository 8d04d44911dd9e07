"""What the `spark-sql` and `hive` engines do: a SQL file's statements run in order, each `${name}` replaced by
the context's variable (an input's paths as one glob, an output's path, a property)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkit.extensions.workflow_engines.context import WorkflowContext
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError
from toolkit.sql_text import VARIABLE, split_statements

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run_sql(spark: SparkSession, ctx: WorkflowContext, source: str, name: str) -> None:
    variables = ctx.variables()
    statements = split_statements(source)
    if not statements:
        raise WorkflowError(f"The workflow {name} holds no SQL statement: write the statements the process runs.")
    for number, statement in enumerate(statements, start=1):
        text = substitute(statement, variables, name)
        try:
            spark.sql(text).collect()
        except Exception as err:  # noqa: BLE001 - Spark's parse and analysis errors are failed attempts
            first_line = (str(err).strip().splitlines() or [""])[0]
            raise WorkflowError(f"Statement {number} of the workflow {name} failed: {first_line}") from None


def substitute(statement: str, variables: dict[str, str], name: str) -> str:
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in variables:
            raise WorkflowError(f"The workflow {name} uses ${{{key}}}, which is no input, output or property of "
                                f"the process: known are {', '.join(sorted(variables))}.")
        return variables[key]

    return VARIABLE.sub(value, statement)
