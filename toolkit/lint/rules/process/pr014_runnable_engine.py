"""PR014: the workflow engine is one this toolkit runs: pyspark, spark-sql, hive or spark.

Why:
The schema also accepts Falcon's oozie and pig so that migrated processes load; nothing would run them, so they
are reported here, with the way out.

Anti-pattern:

    workflow: {engine: pig, path: workflows/summary.pig}

Best practice:

    workflow: {engine: spark-sql, path: workflows/summary.sql}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Engine, Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register

_RUNNABLE = [engine.value for engine in Engine if engine.runnable]
RUNNABLE = f"{', '.join(_RUNNABLE[:-1])} and {_RUNNABLE[-1]}"
PORTING = {
    Engine.OOZIE: "port the Oozie workflow's actions to a PySpark file defining run(spark, ctx) (engine: pyspark) "
                  "or to a SQL file (engine: spark-sql or hive)",
    Engine.PIG: "port the Pig script to a PySpark file defining run(spark, ctx) (engine: pyspark) or to a SQL file "
                "(engine: spark-sql)",
}


@register
class RunnableEngine(EntityRule[Process]):
    code = "PR014"
    summary = "The workflow engine is one this toolkit runs: pyspark, spark-sql, hive or spark (not oozie or pig)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        engine = entity.workflow.engine
        if engine.runnable:
            return
        yield Finding(
            entity,
            f"workflow.engine '{engine.value}' is not run by this toolkit, which runs {RUNNABLE}; "
            f"{PORTING[engine]} and set workflow.engine and workflow.path to it. Until then the process cannot "
            f"run here (while migrating, `lint: {{ignore: [{self.code}]}}` keeps it from failing the lint).",
            ("workflow", "engine"),
        )
