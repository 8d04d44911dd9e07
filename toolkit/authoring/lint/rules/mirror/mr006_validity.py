"""MR006: a mirror's validity ends after it starts (the end is excluded).

Why:
A validity whose end is not after its start holds no nominal time: the mirror would never run, and the disaster
recovery copy it stands for would silently not exist.

Anti-pattern:

    validity: {start: 2027-01-01T00:00Z, end: 2026-01-01T00:00Z}

Best practice:

    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Mirror


@register
class MirrorValidityOrder(EntityRule[Mirror]):
    code = "MR006"
    summary = "A mirror's validity start is before its end."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        start, end = entity.validity.start, entity.validity.end
        if start >= end:
            yield Finding(entity, f"validity.end {format_timestamp(end)} is not after its start "
                          f"{format_timestamp(start)}, so the mirror never runs; give an end after the start (the end "
                          "is excluded).", ("validity", "end"))
