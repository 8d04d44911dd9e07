"""PR015: the workflow path, and each late input's `workflow-path`, point where the process runner can read it.

Why:
A relative path is a file in the config repo (it must exist there, and stay inside it). A path starting with `/`
is on the cluster's file system, under its `write` endpoint, as feed paths are (Falcon's workflows live on the
cluster: `/app/hive/wordcount.hql`): the runner reads it when the process runs, so only its form is checked
here. A URI (hdfs://, file://) is read as it is and not checked. The late inputs' `workflow-path` of the spark,
oozie and pig engines is not checked: their late rerun reruns the process's own workflow, as Falcon's does (Falcon
never reads that attribute, and accepts any text in it).

Anti-pattern: not in the repo.

    workflow: {engine: hive, path: workflows/missing.hql}

Best practice: read on the cluster at run time (or a file that exists in the repo).

    workflow: {engine: hive, path: /app/hive/wordcount.hql}
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import where
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.extensions.workflow_engines.engine import WorkflowForm
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.uris import has_dot_segment

URI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_VALID = ("give a file path relative to the repo root (workflows/summary.py), an absolute path on the cluster's "
          "file system (/apps/summary.py) or a URI (hdfs://namenode:8020/apps/summary.py).")


@register
class WorkflowPaths(EntityRule[Process]):
    code = "PR015"
    summary = ("The workflow path and each late input's workflow-path (of an engine that runs it) exist in the repo "
               "when relative; an absolute path is on the cluster (its form is checked), a URI is not checked.")
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        # Falcon's Oozie workflows and Spark applications are folders (a workflow.xml, or the application's
        # files); the others are files.
        engine = engine_of(entity)
        folder_ok = engine.form is WorkflowForm.FOLDER
        yield from _check(entity, ctx.root, ("workflow", "path"), entity.workflow.path, folder_ok)
        if entity.late_process is not None and engine.late_workflows:
            for index, late in enumerate(entity.late_process.late_inputs):
                path = ("late-process", "late-inputs", index, "workflow-path")
                yield from _check(entity, ctx.root, path, late.workflow_path, folder_ok)


def _check(entity: Process, root: Path, path: FieldPath, value: str, folder_ok: bool) -> Iterator[Finding]:
    if URI_SCHEME.match(value):
        return
    if value.startswith("/"):
        if has_dot_segment(value):
            yield Finding(entity, f"{where(path)} {value!r} has a '.' or '..' segment, which would climb out of where "
                                  "the path says it is on the cluster; give the path without it.", path)
        return
    target = root / value
    if not target.resolve().is_relative_to(root.resolve()):
        yield Finding(entity, f"{where(path)} {value!r} leaves the config repo; give a path inside it, an absolute "
                              "path on the cluster's file system (/apps/summary.sql) or a URI.", path)
    elif not target.exists():
        yield Finding(entity, f"{where(path)} {value!r} does not exist in the config repo; {_VALID}", path)
    elif target.is_dir() and not folder_ok:
        yield Finding(entity, f"{where(path)} {value!r} is a folder, not a workflow file; {_VALID}", path)
