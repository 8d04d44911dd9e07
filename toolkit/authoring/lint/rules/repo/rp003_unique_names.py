"""RP003: entity names are unique per kind.

Why:
Otherwise which entity an action runs depends on file order.

Anti-pattern: feeds/clicks.yaml and feeds/clicks-copy.yaml.

    - {kind: feed, name: clicks}
    - {kind: feed, name: clicks}

Best practice:

    - {kind: feed, name: clicks}
    - {kind: feed, name: clicks-copy}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register


@register
class UniqueNames(Rule):
    code = "RP003"
    summary = "Entity names are unique per kind."

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for group in ctx.repo.duplicates():
            first = group[0]
            for entity in group[1:]:
                yield Finding(entity, f"name {entity.name!r} is already the name of the {first.kind.value} in "
                              f"{first.source_file}; give one of them another name.", ("name",))
