"""CL010: a cluster's `report.out` is an absolute file of the scheduler's host.

Why:
`toolkit schedule` turns the property into a call of `toolkit report --out <file>` every 5 minutes, on the
scheduler's host, which writes the cluster's status page there (docs/report.md). Cron runs it from the home folder
of its user, so a relative path writes wherever that is, and a URI or a folder is no file to write: every call
would fail, or write a page nobody opens.

Anti-pattern:

    properties:
      report.out: www/status.html

Best practice:

    properties:
      report.out: /srv/www/status.html
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.host_paths import REPORT_OUT, file_problem, host_path
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster


@register
class ReportOut(EntityRule[Cluster]):
    code = "CL010"
    summary = "A cluster's report.out is an absolute file of the scheduler's host."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        value = host_path(entity, REPORT_OUT)
        problem = file_problem(value) if value is not None else None
        if problem is not None:
            yield Finding(entity, f"properties.{REPORT_OUT} {problem}.", ("properties", REPORT_OUT))
