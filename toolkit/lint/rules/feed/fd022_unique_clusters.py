"""FD022: a feed lists each of its clusters once (a second entry would be silently ignored)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register


@register
class UniqueClusters(EntityRule):
    code = "FD022"
    summary = "A feed lists each of its clusters once."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        seen: dict[str, int] = {}
        for index, cluster in enumerate(entity.clusters):
            if cluster.name in seen:
                yield Finding(
                    entity,
                    f"clusters[{index}].name '{cluster.name}' is already clusters[{seen[cluster.name]}]; list each "
                    "cluster once, with all its settings in one entry.",
                    ("clusters", index, "name"),
                )
            else:
                seen[cluster.name] = index
