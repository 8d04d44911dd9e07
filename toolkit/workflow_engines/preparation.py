"""How the runner gets a process's workflow ready: the request an engine's preparer is given, what it returns,
and the preparer itself, loaded from the name the engine's description gives (`WorkflowEngine.prepare`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from toolkit.entities.model import Cluster, Process
from toolkit.errors import ToolkitError
from toolkit.storage.filesystem import FileSystem
from toolkit.workflow_engines.context import WorkflowContext
from toolkit.workflow_engines.engine import WorkflowEngine

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True, kw_only=True)
class WorkflowRequest:
    """What an engine is given to prepare a process's workflow on a cluster, before any lock or record.
    `path` is the workflow to run: `workflow.path`, or a late input's own `workflow-path` for a late rerun."""

    repo_root: Path
    process: Process
    cluster: Cluster
    fs: FileSystem
    spark: SparkSession | None
    path: str
    owner: str  # "process 'x'", for sentences


class PreparedWorkflow(Protocol):
    """A workflow found and checked (a missing file is exit 2 before anything happens), run once per attempt."""

    @property
    def name(self) -> str:
        """As errors and tracebacks name it: the repo-relative path, the URI or the application."""
        ...

    @property
    def sql(self) -> str | None:
        """The workflow's SQL text when it is SQL (lineage reads its columns), else None."""
        ...

    def run(self, spark: SparkSession, ctx: WorkflowContext) -> None:
        """One attempt for one instance (or batch); a failure is a `WorkflowError`, retried by the policy."""
        ...


Preparer = Callable[[WorkflowRequest], PreparedWorkflow]


def preparer_of(engine: WorkflowEngine) -> Preparer:
    """The engine's preparer, imported now; an engine accepted for migration only has none (a toolkit error: the
    runner checks `runnable` first)."""
    if engine.prepare is None:
        raise ToolkitError(f"The workflow engine {engine.name!r} is accepted for migration only and runs nothing.")
    module_name, _, function_name = engine.prepare.partition(":")
    function = getattr(importlib.import_module(module_name), function_name, None)
    if not callable(function):
        raise ToolkitError(f"The workflow engine {engine.name!r} names {engine.prepare!r} as its preparer, which "
                           "is no function.")
    return cast(Preparer, function)
