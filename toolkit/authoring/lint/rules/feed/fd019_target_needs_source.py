"""FD019: a feed with a target cluster has a source cluster to replicate from.

Why:
A target is written by replication from a source: without one, nothing ever writes the target's instances.

Anti-pattern:

    clusters:
      - {name: backup, type: target}

Best practice:

    clusters:
      - {name: primary, type: source}
      - {name: backup, type: target}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import sources, targets
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class TargetNeedsSource(EntityRule[Feed]):
    code = "FD019"
    summary = "A feed with a target cluster has a source cluster."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        if sources(entity):
            return
        for index in targets(entity):
            yield Finding(
                entity,
                f"clusters[{index}].type is 'target' on cluster '{entity.clusters[index].name}', but no cluster of "
                "the feed is a source to replicate from; make the cluster where the feed is produced "
                "type: source.",
                ("clusters", index, "type"),
            )
