"""RP002: an entity lives in the folder of its kind (clusters/, feeds/, processes/, datasources/, mirrors/).

Why:
Entities are found by kind and name: a feed under processes/ is looked for in feeds/ and not found there.

Anti-pattern: the file and its content.

    processes/clicks.yaml: {kind: feed, name: clicks}

Best practice:

    feeds/clicks.yaml: {kind: feed, name: clicks}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register


@register
class FolderMatchesKind(Rule):
    code = "RP002"
    summary = "An entity's folder matches its kind: clusters/, feeds/, processes/, datasources/ or mirrors/."

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for entity in ctx.repo.entities:
            if entity.folder != entity.kind.folder:
                yield Finding(entity, f"kind {entity.kind.value!r} is in folder {entity.folder}/; move the file to "
                              f"{entity.kind.folder}/ or correct its kind.", ("kind",))
