"""The preparers of engines whose workflow is one text file run in the entrypoint's own SparkSession (pyspark,
spark-sql, hive): the file is read when the run is prepared, and each attempt hands its text to the engine's
function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.extensions.workflow_engines.context import WorkflowContext
from toolkit.extensions.workflow_engines.preparation import WorkflowRequest
from toolkit.extensions.workflow_engines.python_workflow import run_python
from toolkit.extensions.workflow_engines.sql_statements import run_sql
from toolkit.extensions.workflow_engines.workflow_source import WorkflowSource, read_workflow

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Runs a workflow's text (its name, as errors name it, last) in the session with the context.
TextRunner = Callable[["SparkSession", WorkflowContext, str, str], None]


@dataclass(frozen=True)
class TextWorkflow:
    source: WorkflowSource
    runner: TextRunner
    is_sql: bool

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def sql(self) -> str | None:
        return self.source.text if self.is_sql else None

    def run(self, spark: SparkSession, ctx: WorkflowContext) -> None:
        self.runner(spark, ctx, self.source.text, self.source.name)


def prepare_python(request: WorkflowRequest) -> TextWorkflow:
    """pyspark: the Python file's `run(spark, ctx)`."""
    return TextWorkflow(_read(request), run_python, is_sql=False)


def prepare_sql(request: WorkflowRequest) -> TextWorkflow:
    """spark-sql and hive: the SQL file's statements, in order."""
    return TextWorkflow(_read(request), run_sql, is_sql=True)


def _read(request: WorkflowRequest) -> WorkflowSource:
    """The workflow file, from the repo, the cluster's file system or a URI."""
    return read_workflow(request.repo_root, request.cluster, request.path, request.fs, request.owner)
