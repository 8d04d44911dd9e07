"""PR015: the workflow file, and each late input's `workflow-path`, exist in the config repo.

Paths are relative to the repo root; a path with a URI scheme (hdfs://, s3a://, file://) is on a
cluster and is not checked here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from toolkit.entities.document import FieldPath
from toolkit.entities.kinds import Kind
from toolkit.entities.model import Engine, Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.lint.rules.process._support import where

URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@register
class WorkflowPaths(EntityRule):
    code = "PR015"
    summary = "The workflow path and each late input's workflow-path exist in the repo (URIs are not checked)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        # Falcon's Oozie workflows and Spark applications are folders (a workflow.xml, or the application's
        # files); the others are files.
        folder_ok = entity.workflow.engine in (Engine.OOZIE, Engine.SPARK)
        yield from _check(entity, ctx.root, ("workflow", "path"), entity.workflow.path, folder_ok)
        if entity.late_process is not None:
            for index, late in enumerate(entity.late_process.late_inputs):
                path = ("late-process", "late-inputs", index, "workflow-path")
                yield from _check(entity, ctx.root, path, late.workflow_path, folder_ok)


def _check(entity: Process, root: Path, path: FieldPath, value: str, folder_ok: bool) -> Iterator[Finding]:
    if URI_SCHEME.match(value):
        return
    target = root / value
    valid = ("give a file path relative to the repo root, such as workflows/summary.py, or a URI such as "
             "hdfs://namenode:8020/apps/summary.py for a file on the cluster.")
    if not target.exists():
        yield Finding(entity, f"{where(path)} {value!r} does not exist in the config repo; {valid}", path)
    elif target.is_dir() and not folder_ok:
        yield Finding(entity, f"{where(path)} {value!r} is a folder, not a workflow file; {valid}", path)
