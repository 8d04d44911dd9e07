"""PR002: on each cluster, the process's validity ends after it starts (the end is excluded).

Why:
A validity whose end is not after its start holds no instance: the process would never run there.

Anti-pattern:

    clusters:
      - {name: primary, validity: {start: "2026-01-01T00:00Z", end: "2026-01-01T00:00Z"}}

Best practice:

    clusters:
      - {name: primary, validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import ts
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class ValidityOrder(EntityRule[Process]):
    code = "PR002"
    summary = "On each cluster, the process's validity start is before its end."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            start, end = cluster.validity.start, cluster.validity.end
            if start >= end:
                yield Finding(
                    entity,
                    f"clusters[{index}].validity.end {ts(end)} is not after its start {ts(start)} on cluster "
                    f"'{cluster.name}', so the process has no instance there; give an end after the start "
                    "(the end is excluded).",
                    ("clusters", index, "validity", "end"),
                )
