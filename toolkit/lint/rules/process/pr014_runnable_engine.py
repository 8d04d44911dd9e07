"""PR014: the workflow engine is one this toolkit runs, not one accepted for migration only (oozie, pig).

Why:
The schema also accepts Falcon's oozie and pig so that migrated processes load; nothing would run them, so they
are reported here, with the way out (each engine's `port_to`, toolkit/workflow_engines/).

Anti-pattern:

    workflow: {engine: pig, path: workflows/summary.pig}

Best practice:

    workflow: {engine: spark-sql, path: workflows/summary.sql}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register
from toolkit.workflow_engines.registry import engine_of, runnable_names


@register
class RunnableEngine(EntityRule[Process]):
    code = "PR014"
    summary = "The workflow engine is one this toolkit runs: pyspark, spark-sql, hive or spark (not oozie or pig)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        engine = engine_of(entity)
        if engine.port_to is None:
            return
        yield Finding(
            entity,
            f"workflow.engine '{engine.name}' is not run by this toolkit, which runs {runnable_names()}; "
            f"port {engine.port_to} and set workflow.engine and workflow.path to it. Until then the process cannot "
            f"run here (while migrating, `lint: {{ignore: [{self.code}]}}` keeps it from failing the lint).",
            ("workflow", "engine"),
        )
