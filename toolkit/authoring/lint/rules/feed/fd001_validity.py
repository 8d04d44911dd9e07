"""FD001: on each cluster, the feed's validity does not end before it starts.

Why:
A validity that ends before it starts holds no instance: retention, replication and every process reading the
feed on that cluster would silently find nothing.

Anti-pattern:

    clusters:
      - name: primary
        validity: {start: "2026-01-01T00:00Z", end: "2025-01-01T00:00Z"}

Best practice:

    clusters:
      - name: primary
        validity: {start: "2025-01-01T00:00Z", end: "2026-01-01T00:00Z"}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class ValidityOrder(EntityRule[Feed]):
    code = "FD001"
    summary = "On each cluster, the feed's validity start is not after its end."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for index, cluster in enumerate(entity.clusters):
            start, end = cluster.validity.start, cluster.validity.end
            if start > end:
                yield Finding(
                    entity,
                    f"clusters[{index}].validity.start {format_timestamp(start)} is after its end "
                    f"{format_timestamp(end)} on cluster '{cluster.name}'; give a start at or before "
                    f"{format_timestamp(end)}, or a later end.",
                    ("clusters", index, "validity", "start"),
                )
