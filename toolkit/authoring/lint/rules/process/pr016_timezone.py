"""PR016: the process's `timezone` is an IANA time zone.

Why:
The process's days and months, and its grid, are counted in its zone: an unknown name is never read as UTC.

Anti-pattern:

    timezone: America/Los_Angles

Best practice:

    timezone: America/Los_Angeles
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.checks import unknown_time_zone
from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class ValidTimezone(EntityRule[Process]):
    code = "PR016"
    summary = "The process's timezone is a known IANA time zone."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        return unknown_time_zone(entity)
