"""How the runner gets a process's workflow ready: the request an engine's preparer is given, what it returns,
and the preparer itself, loaded from the name the engine's description gives (`WorkflowEngine.prepare`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from toolkit.clock import Clock
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import ToolkitError
from toolkit.extensions.workflow_engines.context import WorkflowContext
from toolkit.extensions.workflow_engines.engine import WorkflowEngine

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
    clock: Clock  # the runner's: an engine that waits for another server's job times its polls with it


class Workflow(Protocol):
    """A workflow found and checked (a missing file is exit 2 before anything happens), run once per attempt:
    a `PreparedWorkflow`, or a `RemoteJobWorkflow` (a job of another server)."""

    @property
    def name(self) -> str:
        """As errors and tracebacks name it: the repo-relative path, the URI or the application."""
        ...

    @property
    def sql(self) -> str | None:
        """The workflow's SQL text when it is SQL (lineage reads its columns), else None."""
        ...


class PreparedWorkflow(Workflow, Protocol):
    """A workflow run in the entrypoint's process, with its Spark session."""

    def run(self, spark: SparkSession, ctx: WorkflowContext) -> None:
        """One attempt for one instance (or batch); a failure is a `WorkflowError`, retried by the policy."""
        ...


class JobJournal(Protocol):
    """Where an attempt whose workflow runs as a job of another server (an Oozie workflow job) records the job's id
    in the ledger before it follows the job, and learns the job a killed run of the instance started, which it
    follows instead of submitting the workflow again."""

    def followed(self) -> str | None:
        """The id of the killed run's job this attempt follows (its outputs are that run's staging), or None."""
        ...

    def record(self, job: str) -> None:
        """Record the job's id in the attempt's record, before the job runs."""
        ...

    def ended(self, status: str) -> None:
        """The job's end status as its server says it (SUCCEEDED, FAILED, KILLED), kept in the attempt's record:
        a job whose end was seen is never followed again."""
        ...

    def held(self) -> str | None:
        """Why the instance is held now (`toolkit suspend --time`: who, when, why), or None: while it is held, the
        job is suspended on its server, and resumed once the hold is removed."""
        ...


@runtime_checkable
class RemoteJobWorkflow(Workflow, Protocol):
    """A workflow that runs as a job of another server (the `oozie` and `pig` engines'): the runner gives it the
    attempt's journal instead of a Spark session."""

    def run_job(self, ctx: WorkflowContext, journal: JobJournal) -> None:
        """One attempt: the job followed (or submitted, its id recorded first) to its end; a failure is a
        `WorkflowError`, retried by the policy."""
        ...


Preparer = Callable[[WorkflowRequest], PreparedWorkflow | RemoteJobWorkflow]


def preparer_of(engine: WorkflowEngine) -> Preparer:
    """The engine's preparer, imported now."""
    module_name, _, function_name = engine.prepare.partition(":")
    function = getattr(importlib.import_module(module_name), function_name, None)
    if not callable(function):
        raise ToolkitError(f"The workflow engine {engine.name!r} names {engine.prepare!r} as its preparer, which "
                           "is no function.")
    return cast(Preparer, function)
