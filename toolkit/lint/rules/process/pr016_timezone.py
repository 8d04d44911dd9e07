"""PR016: the process's `timezone` is an IANA time zone (its days and months, and its grid, are
counted there; an unknown name is never read as UTC)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.el.timezones import resolve_zone
from toolkit.entities.kinds import Kind
from toolkit.entities.model import Process
from toolkit.errors import UsageError
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register


@register
class ValidTimezone(EntityRule):
    code = "PR016"
    summary = "The process's timezone is a known IANA time zone."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        try:
            resolve_zone(entity.timezone)
        except UsageError:
            yield Finding(
                entity,
                f"timezone {entity.timezone!r} is not a known IANA time zone; give one such as UTC, Europe/Berlin "
                "or America/Los_Angeles (names are case-sensitive).",
                ("timezone",),
            )
