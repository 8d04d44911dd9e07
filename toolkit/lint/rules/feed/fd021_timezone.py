"""FD021: the feed's `timezone` is an IANA time zone (an unknown name is an error, never a silent UTC)."""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.el.timezones import resolve_zone
from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed
from toolkit.errors import UsageError
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register


@register
class TimeZone(EntityRule):
    code = "FD021"
    summary = "The feed's timezone is an IANA time zone name."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        try:
            resolve_zone(entity.timezone)
        except UsageError:
            yield Finding(
                entity,
                f"timezone {entity.timezone!r} is not an IANA time zone; give a name such as UTC, Europe/Berlin "
                "or America/Los_Angeles (a fixed offset is Etc/GMT-5 for UTC+5: the sign is inverted).",
                ("timezone",),
            )
