"""What a workflow engine is: the facts the linter, the session builder and the runner ask of it.

An engine is described once, by a `WorkflowEngine` named `ENGINE` in its own `*_engine.py` module of this package
(`registry.py` finds them). The description holds no code that runs a workflow: it names the function that
prepares one (`prepare`, "module:function", loaded by `preparation.py` only when a process runs), so that the
linter, which reads these facts in a pre-commit hook, loads neither Spark nor any engine's run code. An engine
that this toolkit does not run (Falcon's oozie and pig, accepted so that migrated processes load) names no
`prepare` and says instead how to port a workflow to one that runs (`port_to`, lint PR014).
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
    process's workflow (`preparation.Preparer`), as "package.module:function"; None for an engine accepted only
    for migration, which then says in `port_to` how to port its workflows (completing "port ...").
    `late_workflows`: a late rerun runs the late input's own `workflow-path` (lint PR015 checks it); False for
    Falcon's engines, whose late rerun, as in Falcon (which never reads that attribute), reruns the process's
    workflow, so the value is carried over and not read."""

    name: str
    form: WorkflowForm = WorkflowForm.FILE
    hive: bool = False
    prepare: str | None = None
    port_to: str | None = None
    late_workflows: bool = True

    def __post_init__(self) -> None:
        if (self.prepare is None) == (self.port_to is None):
            raise ValueError(f"The workflow engine {self.name!r} must either prepare workflows or say how to port "
                             "them (port_to), not both or neither.")
        if self.prepare is not None and not _FUNCTION.match(self.prepare):
            raise ValueError(f"The workflow engine {self.name!r} names its preparer {self.prepare!r}: write it as "
                             "'package.module:function'.")

    @property
    def runnable(self) -> bool:
        return self.prepare is not None
