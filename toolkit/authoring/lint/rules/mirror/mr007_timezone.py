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

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Mirror
from toolkit.errors import UsageError


@register
class MirrorTimezone(EntityRule[Mirror]):
    code = "MR007"
    summary = "A mirror's jobTimezone is a known IANA time zone."
    kind = Kind.MIRROR

    def check_entity(self, entity: Mirror, ctx: LintContext) -> Iterator[Finding]:
        try:
            resolve_zone(entity.job_timezone)
        except UsageError:
            yield Finding(entity, f"jobTimezone {entity.job_timezone!r} is not an IANA time zone; give a name such as "
                          "UTC, Europe/Berlin or America/Los_Angeles (names are case-sensitive; a fixed offset is "
                          "Etc/GMT-5 for UTC+5: the sign is inverted).", ("jobTimezone",))
