"""FD022: a feed lists each of its clusters once.

Why:
A second entry for the same cluster would be silently ignored, with its validity, retention and locations.

Anti-pattern:

    clusters:
      - {name: primary, type: source, retention: {limit: days(90), action: delete}}
      - {name: primary, type: source, retention: {limit: days(7), action: delete}}

Best practice:

    clusters:
      - {name: primary, type: source, retention: {limit: days(90), action: delete}}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import repeated_clusters
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class UniqueClusters(EntityRule[Feed]):
    code = "FD022"
    summary = "A feed lists each of its clusters once."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        return repeated_clusters(entity, "with all its settings in one entry")
