"""PR014: a process whose engine runs on the cluster's Oozie server (oozie, pig) has one on each of its clusters.

Why:
Falcon never ran a process's workflow itself: it handed it to the Oozie server of the cluster, and so do the oozie
and pig engines (toolkit/extensions/workflow_engines/oozie_workflow.py). A cluster whose `workflow` interface is missing
or is no Oozie URL (`cron://localhost` names the scheduler that calls the entrypoints), or whose `oozie.client.*`
properties cannot work, would fail every run of the process there (exit 2); the lint says so first.

Anti-pattern:

    workflow: {engine: oozie, path: /apps/rollup}     # on a cluster whose workflow interface is cron://localhost

Best practice:

    interfaces: {workflow: {endpoint: "http://oozie:11000/oozie", version: "5.2"}}     # in the cluster
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.extensions.workflow_engines.oozie_settings import interface_problem, settings_problems
from toolkit.extensions.workflow_engines.registry import engine_of


@register
class RunnableEngine(EntityRule[Process]):
    code = "PR014"
    summary = "An oozie or pig process has an Oozie server on each of its clusters (their workflow interface)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        engine = engine_of(entity)
        if not engine.oozie:
            return
        for index, on_cluster in enumerate(entity.clusters):
            cluster = ctx.repo.clusters.get(on_cluster.name)
            if cluster is None:
                continue
            problem = interface_problem(cluster)
            problems = [problem] if problem is not None else [
                f"has a property that cannot work: {what}" for _, what in settings_problems(cluster)]
            for said in problems:
                yield Finding(
                    entity,
                    f"workflow.engine '{engine.name}' runs the workflow on the Oozie server of each of the process's "
                    f"clusters, and cluster '{cluster.name}' {said} Until then the process cannot run there.",
                    ("clusters", index, "name"),
                )
