"""PR018: a process of engine spark names its application in `spark-attributes.jar`.

Falcon's spark engine runs the application that `jar` names (a .jar, or a .py file); `workflow.path` is only
the application's folder and is not read. Without `jar` there is nothing to run.

Fails:  workflow: {engine: spark, path: /apps/sessions}, spark-attributes: {name: sessions}
Fix:    spark-attributes: {name: sessions, jar: /apps/sessions/sessions.py}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Engine, Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register


@register
class SparkApplication(EntityRule):
    code = "PR018"
    summary = "A process of engine spark names its application in spark-attributes.jar."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if entity.workflow.engine is not Engine.SPARK:
            return
        attributes = entity.spark_attributes
        if attributes is not None and attributes.jar and attributes.jar.split(",")[0].strip():
            return
        yield Finding(
            entity,
            "workflow.engine spark runs the application named by spark-attributes.jar, which is not given: set "
            "spark-attributes.jar to the application's .jar or .py file (an absolute path is on the cluster's file "
            "system, a relative one in the config repo).",
            ("spark-attributes",) if attributes is not None else ("workflow", "engine"),
        )
