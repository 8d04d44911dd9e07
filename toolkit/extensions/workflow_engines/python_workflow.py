"""What the `pyspark` engine does: a Python file that defines `run(spark, ctx)`, executed in the entrypoint's
session."""

from __future__ import annotations

import sys
import traceback
import types
from typing import TYPE_CHECKING

from toolkit.extensions.workflow_engines.context import WorkflowContext
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run_python(spark: SparkSession, ctx: WorkflowContext, source: str, name: str) -> None:
    module = types.ModuleType(f"toolkit_workflow_{ctx.process.replace('-', '_')}")
    module.__file__ = name
    try:
        code = compile(source, name, "exec")
    except SyntaxError as err:
        raise WorkflowError(f"The workflow {name} is not valid Python: {err.msg} at line {err.lineno}.") from None
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the user's workflow is this engine's job
    except Exception as err:  # noqa: BLE001 - anything the user's module raises while loading
        raise _failure(name, "loading it", err) from None
    run = module.__dict__.get("run")
    if not callable(run):
        raise WorkflowError(f"The workflow {name} defines no function run(spark, ctx): define one; the process "
                            "runner calls it.")
    try:
        run(spark, ctx)
    except SystemExit as stop:  # sys.exit() in a workflow must not end the entrypoint without its status line
        raise WorkflowError(f"The workflow {name} called sys.exit({stop.code!r}) in run(spark, ctx): return "
                            "normally on success, raise an exception on failure.") from None
    except Exception as err:  # noqa: BLE001 - the user's code may raise anything: it is a failed attempt
        raise _failure(name, "run(spark, ctx)", err) from None


def _failure(name: str, during: str, err: Exception) -> WorkflowError:
    """The user's traceback goes to stderr (their code, their frames); the error is one sentence."""
    frames = [frame for frame in traceback.extract_tb(err.__traceback__) if frame.filename == name]
    if frames:
        print("".join(traceback.format_list(frames)).rstrip(), file=sys.stderr)
    where = f" (line {frames[-1].lineno})" if frames else ""
    first_line = (str(err).strip().splitlines() or [""])[0]
    return WorkflowError(f"The workflow {name} failed in {during}{where}: {type(err).__name__}: {first_line}")

