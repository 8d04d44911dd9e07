"""CL009: a cluster's `metrics.textfile` is an absolute folder of the scheduler's host.

Why:
`toolkit schedule` turns the property into a call of `toolkit metrics --textfile <folder>` every 5 minutes, on the
scheduler's host, for node_exporter's textfile collector to read (docs/metrics.md). Cron runs it from the home
folder of its user, so a relative path writes wherever that is, and a URI is no folder at all: every call would
fail, or write where node_exporter never looks.

Anti-pattern:

    properties:
      metrics.textfile: node-exporter/textfiles

Best practice:

    properties:
      metrics.textfile: /var/lib/prometheus/node-exporter
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.host_paths import METRICS_TEXTFILE, folder_problem, host_path
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Cluster


@register
class MetricsTextfile(EntityRule[Cluster]):
    code = "CL009"
    summary = "A cluster's metrics.textfile is an absolute folder of the scheduler's host."
    kind = Kind.CLUSTER

    def check_entity(self, entity: Cluster, ctx: LintContext) -> Iterator[Finding]:
        value = host_path(entity, METRICS_TEXTFILE)
        problem = folder_problem(value) if value is not None else None
        if problem is not None:
            yield Finding(entity, f"properties.{METRICS_TEXTFILE} {problem}.", ("properties", METRICS_TEXTFILE))
