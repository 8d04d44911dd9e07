"""RP001: an entity's file is named after it, so `feeds/clicks.yaml` is where `clicks` is found.

Why:
Actions and people find an entity by its name: a file named otherwise hides it, and invites a second entity of
the same name.

Anti-pattern: the file and its content.

    feeds/click.yaml: {kind: feed, name: clicks}

Best practice:

    feeds/clicks.yaml: {kind: feed, name: clicks}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import Finding, Rule, register


@register
class FileName(Rule):
    code = "RP001"
    summary = "The file name (without .yaml) equals the entity name."

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for entity in ctx.repo.entities:
            if entity.file_stem != entity.name:
                yield Finding(entity, f"name {entity.name!r} differs from its file name {entity.source_file.name!r}; "
                              f"rename the file to {entity.name}{entity.source_file.suffix} or the entity to "
                              f"{entity.file_stem!r}.", ("name",))
