"""PR001: a process lists each cluster once (two validities on one cluster would make two grids)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Process
from toolkit.lint.checks import repeated_clusters
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register


@register
class UniqueClusters(EntityRule):
    code = "PR001"
    summary = "A process lists each of its clusters once."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        return repeated_clusters(entity, "with one validity covering all its runs")
