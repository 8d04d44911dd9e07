"""How the `spark` engine (`spark_engine.py`) runs a process's own application: with its own `spark-submit`, a
child process of the entrypoint, so that it gets its own driver, master and options as it had under Falcon and
Oozie.

The submission (spark-submit, its options and the application) is prepared once, before any lock or record, so a
missing application or a bad option is a usage error (exit 2); each attempt adds the instance's arguments. The
child's output streams to the entrypoint's stderr; a non-zero exit is a failed attempt (`WorkflowError`), whose
sentence names the application, the exit code and the last line of its output that says why.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from toolkit.core.entities.model import Process
from toolkit.errors import UsageError
from toolkit.extensions.workflow_engines.context import WorkflowContext
from toolkit.extensions.workflow_engines.preparation import WorkflowRequest
from toolkit.extensions.workflow_engines.spark_application import resolve_application
from toolkit.extensions.workflow_engines.spark_command import application_arguments, submit_command
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Spark's own log lines (log4j's `yy/MM/dd HH:mm:ss LEVEL logger: message`) say how Spark stopped, not why.
_LOG_LINE = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d ([A-Z]+) ")
_TAIL = 200
# The applications this process runs now (one per running attempt), for terminate_children.
_RUNNING: set[subprocess.Popen[str]] = set()
_GUARD = threading.Lock()


@dataclass(frozen=True)
class SparkSubmission:
    name: str  # the application as written in spark-attributes.jar
    command: tuple[str, ...]  # spark-submit, its options and the application; the instance's arguments follow
    process: Process
    sql: None = None  # an application's SQL, if any, is not the toolkit's to read

    def run(self, spark: SparkSession, ctx: WorkflowContext) -> None:
        """The entrypoint's own session is not used: the application gets its own driver."""
        run_submission(self, ctx)


def prepare_submission(request: WorkflowRequest) -> SparkSubmission:
    """Falcon's spark workflow.path is the application's folder, not read (nor a late input's workflow-path: a
    late rerun runs the same application); the application is spark-attributes.jar."""
    process, cluster, spark = request.process, request.cluster, request.spark
    app = resolve_application(request.repo_root, cluster, process, request.fs, request.owner)
    session_master = spark.sparkContext.master if spark is not None else None
    command = submit_command(spark_submit_path(), process, cluster, app, session_master,
                             os.environ.get("SPARK_LOCAL_IP"))
    return SparkSubmission(app.name, tuple(command), process)


def spark_submit_path() -> str:
    """SPARK_HOME's spark-submit (spark-submit sets it for its driver), else the one of the pyspark package."""
    home = os.environ.get("SPARK_HOME")
    if not home:
        spec = importlib.util.find_spec("pyspark")
        if spec is None or not spec.submodule_search_locations:
            raise UsageError("The spark engine needs spark-submit: set SPARK_HOME or install pyspark.")
        home = next(iter(spec.submodule_search_locations))
    path = Path(home) / "bin" / "spark-submit"
    if not os.access(path, os.X_OK):
        raise UsageError(f"The spark engine needs spark-submit, and {path} is not an executable file: set "
                         "SPARK_HOME to a Spark installation.")
    return str(path)


def run_submission(submission: SparkSubmission, ctx: WorkflowContext, log: TextIO | None = None) -> None:
    """Run the application for one instance to its end; its output goes to `log` (the entrypoint's stderr)."""
    out = log or sys.stderr
    command = [*submission.command, *application_arguments(submission.process, ctx)]
    tail: deque[str] = deque(maxlen=_TAIL)
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", bufsize=1)
    with _GUARD:
        _RUNNING.add(child)
    try:
        assert child.stdout is not None
        for line in child.stdout:
            out.write(line)
            tail.append(line.rstrip("\n"))
        code = child.wait()
    except BaseException:  # the entrypoint is stopped (a signal, a lost lock): the application stops with it
        child.terminate()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
        raise
    finally:
        with _GUARD:
            _RUNNING.discard(child)
    out.flush()
    if code != 0:
        raise WorkflowError(f"The Spark application {submission.name} exited with code {code}: "
                            f"{last_meaningful_line(tail)}")


def terminate_children() -> None:
    """End the applications this process runs now (SIGTERM: spark-submit stops its driver): `toolkit kill` of the
    instance, read by the runner's lease keeper. Each run_submission then ends with the child's exit code."""
    with _GUARD:
        running = list(_RUNNING)
    for child in running:
        child.terminate()


def last_meaningful_line(lines: Iterable[str]) -> str:
    """The last line that says why: not blank, not indented (a stack frame), not one of Spark's INFO/WARN log
    lines; else Spark's last ERROR line; else a sentence saying that it gave no reason."""
    meaningful, errors = None, None
    for line in lines:
        text = line.strip()
        log = _LOG_LINE.match(line)
        if log is not None:
            if log.group(1) in ("ERROR", "FATAL"):
                errors = line[log.end():].strip()
        elif text and not line[:1].isspace():
            meaningful = text
    found = meaningful or errors
    if found is None:
        return "it printed no reason (its output is above, on stderr)"
    return found if len(found) <= 300 else found[:297] + "..."
