"""The `spark-sql` and `hive` engines: a SQL file's statements run in order, each `${name}` replaced by the
context's variable (an input's paths as one glob, an output's path, a property); Hive support is on when the
process reads or writes tables (the entrypoint builds the session)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkit.process_runner.context import WorkflowContext
from toolkit.process_runner.engines.workflow_error import WorkflowError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")


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

    return _VARIABLE.sub(value, statement)


def split_statements(source: str) -> list[str]:
    """Statements separated by `;` outside quotes, backticks and comments; comments dropped, empty ones too."""
    statements, current = [], []
    i, n = 0, len(source)
    quote: str | None = None
    while i < n:
        char = source[i]
        if quote:
            current.append(char)
            if char == "\\" and quote != "`" and i + 1 < n:
                current.append(source[i + 1])
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"`":
            quote = char
            current.append(char)
        elif source.startswith("--", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
            current.append(" ")
            continue
        elif char == ";":
            statements.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    statements.append("".join(current))
    return [statement.strip() for statement in statements if statement.strip()]
