"""FD021: the feed's `timezone` is an IANA time zone.

Why:
The feed's days and months are counted in its zone: an unknown name is an error, never a silent UTC.

Anti-pattern:

    timezone: Europe/Paaris

Best practice:

    timezone: Europe/Paris
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import unknown_time_zone
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed


@register
class TimeZone(EntityRule[Feed]):
    code = "FD021"
    summary = "The feed's timezone is an IANA time zone name."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        return unknown_time_zone(entity)
