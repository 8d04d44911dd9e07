"""PR018: a process of engine spark names its application in `spark-attributes.jar`, which exists when relative.

Why:
Falcon's spark engine runs the application that `jar` names (a .jar, or a .py file); `workflow.path` is only
the application's folder and is not read. Without `jar` there is nothing to run. An entry that is a path relative
to the config repo must exist there; an absolute path (on the cluster's file system) and a URI are checked when
the process runs, not here.

Anti-pattern:

    workflow: {engine: spark, path: /apps/sessions}
    spark-attributes: {name: sessions}

Best practice:

    workflow: {engine: spark, path: /apps/sessions}
    spark-attributes: {name: sessions, jar: /apps/sessions/sessions.py}
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.extensions.workflow_engines import spark_engine
from toolkit.extensions.workflow_engines.registry import engine_of

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@register
class SparkApplication(EntityRule[Process]):
    code = "PR018"
    summary = ("A process of engine spark names its application in spark-attributes.jar; an entry relative to the "
               "repo exists there.")
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if engine_of(entity) is not spark_engine.ENGINE:
            return
        attributes = entity.spark_attributes
        entries = [entry.strip() for entry in (attributes.jar or "").split(",")] if attributes is not None else []
        if not entries or not entries[0]:
            yield Finding(
                entity,
                "workflow.engine spark runs the application named by spark-attributes.jar, which is not given: set "
                "spark-attributes.jar to the application's .jar or .py file (an absolute path is on the cluster's "
                "file system, a relative one in the config repo).",
                ("spark-attributes",) if attributes is not None else ("workflow", "engine"),
            )
            return
        for entry in entries:
            in_repo = entry and not entry.startswith("/") and not _URI.match(entry)
            if in_repo and not (ctx.root / entry).is_file():
                yield Finding(
                    entity,
                    f"spark-attributes.jar names {entry}, which does not exist in the config repo; add it, or give "
                    "an absolute path (on the cluster's file system) or a URI.",
                    ("spark-attributes", "jar"),
                )
