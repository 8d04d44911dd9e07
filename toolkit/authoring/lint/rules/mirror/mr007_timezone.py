"""MR007: a mirror's `jobTimezone` is an IANA time zone.

Why:
Days and months of `jobFrequency` are counted in it; an unknown name is never read as UTC, so the mirror could not
tell its nominal times. Names are case-sensitive; a fixed offset is `Etc/GMT-5` for UTC+5 (the sign is inverted).

Anti-pattern:

    jobTimezone: Europe/Pariss

Best practice:

    jobTimezone: Europe/Paris
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import unknown_time_zone
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Mirror


@register
class MirrorTimezone(EntityRule[Mirror]):
    code = "MR007"
    summary = "A mirror's jobTimezone is a known IANA time zone."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        return unknown_time_zone(entity)
