"""PR001: a process lists each cluster once (two validities on one cluster would make two grids)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register


@register
class UniqueClusters(EntityRule):
    code = "PR001"
    summary = "A process lists each of its clusters once."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        first: dict[str, int] = {}
        for index, cluster in enumerate(entity.clusters):
            if cluster.name in first:
                yield Finding(
                    entity,
                    f"clusters[{index}].name '{cluster.name}' is already listed as clusters[{first[cluster.name]}]; "
                    "list each cluster once, with one validity covering all its runs.",
                    ("clusters", index, "name"),
                )
            else:
                first[cluster.name] = index
