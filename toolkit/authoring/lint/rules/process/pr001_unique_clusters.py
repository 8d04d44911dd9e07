"""PR001: a process lists each cluster once.

Why:
Two entries for one cluster would give it two validities, hence two grids of instances.

Anti-pattern:

    clusters:
      - {name: primary, validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}}
      - {name: primary, validity: {start: "2026-06-01T00:00Z", end: "2027-01-01T00:00Z"}}

Best practice:

    clusters:
      - {name: primary, validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import repeated_clusters
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class UniqueClusters(EntityRule[Process]):
    code = "PR001"
    summary = "A process lists each of its clusters once."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        return repeated_clusters(entity, "with one validity covering all its runs")
