"""What a workflow engine is: the facts the linter, the session builder and the runner ask of it.

An engine is described once, by a `WorkflowEngine` named `ENGINE` in its own `*_engine.py` module of this package
(`registry.py` finds them). The description holds no code that runs a workflow: it names the function that
prepares one (`prepare`, "module:function", loaded by `preparation.py` only when a process runs), so that the
linter, which reads these facts in a pre-commit hook, loads neither Spark nor any engine's run code. An engine
that hands the workflow to the cluster's Oozie server (Falcon's oozie and pig) says so (`oozie`): lint PR014
checks that each of the process's clusters names one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

_FUNCTION = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class WorkflowForm(Enum):
    """What `workflow.path` names: a file the engine reads, or a folder (Falcon's Oozie workflow, a Spark
    application's folder) that lint PR015 accepts."""

    FILE = "file"
    FOLDER = "folder"


@dataclass(frozen=True, kw_only=True)
class WorkflowEngine:
    """One value of a process's `workflow.engine` (the JSON schema's enum equals the registry's names).

    `hive`: the entrypoint's SparkSession needs Hive support for it. `prepare`: the function that prepares a
    process's workflow (`preparation.Preparer`), as "package.module:function". `oozie`: the workflow runs as a job
    of the cluster's Oozie server (its `workflow` interface). `late_workflows`: a late rerun runs the late input's
    own `workflow-path` (lint PR015 checks it); False for Falcon's engines, whose late rerun, as in Falcon (which
    never reads that attribute), reruns the process's workflow, so the value is carried over and not read."""

    name: str
    prepare: str
    form: WorkflowForm = WorkflowForm.FILE
    hive: bool = False
    oozie: bool = False
    late_workflows: bool = True

    def __post_init__(self) -> None:
        if not _FUNCTION.match(self.prepare):
            raise ValueError(f"The workflow engine {self.name!r} names its preparer {self.prepare!r}: write it as "
                             "'package.module:function'.")
