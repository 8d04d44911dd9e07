"""The workflow engines by name: every `*_engine.py` module of this package defines one `ENGINE`, found here, so
that adding an engine is adding its module (and its name to the schema's enum, which a test keeps equal)."""

from __future__ import annotations

from functools import cache

import toolkit.extensions.workflow_engines as package
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.core.entities.schemas import schema
from toolkit.errors import ToolkitError
from toolkit.extensions.workflow_engines.engine import WorkflowEngine
from toolkit.plugins import discover


@cache
def engines() -> dict[str, WorkflowEngine]:
    """Every engine, by name, in the order the process schema lists them (sentences list them so)."""
    found = discover(package, "_engine", "ENGINE", WorkflowEngine)
    order = schema_engine_names()
    return dict(sorted(found.items(), key=lambda item: (order.index(item[0]) if item[0] in order else len(order),
                                                        item[0])))


def schema_engine_names() -> list[str]:
    """The values the process schema allows for `workflow.engine`."""
    return list(schema(Kind.PROCESS)["properties"]["workflow"]["properties"]["engine"]["enum"])


def engine_named(name: str) -> WorkflowEngine:
    """The engine a process names; the schema allows only registered names, so another is a toolkit error."""
    engine = engines().get(name)
    if engine is None:
        raise ToolkitError(f"The workflow engine {name!r} is not one of this toolkit's: {', '.join(engines())}.")
    return engine


def engine_of(process: Process) -> WorkflowEngine:
    return engine_named(process.workflow.engine)

