"""FD023: the feed's replication properties hold values the replication action accepts.

Why:
`timeout` is a frequency, `parallel` and `maxMaps` whole numbers of at least 1, `preservePermission` true or
false (toolkit/entities/replication_settings.py reads them): a bad value would stop the run with exit 2.

Anti-pattern:

    properties:
      parallel: "0"
      timeout: 2h

Best practice:

    properties:
      parallel: "2"
      timeout: hours(2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from toolkit.entities.kinds import Kind
from toolkit.entities.model import Feed
from toolkit.entities.replication_settings import flag, positive_int, timeout
from toolkit.errors import UsageError
from toolkit.lint.context import LintContext
from toolkit.lint.rule import EntityRule, Finding, register

_CHECKS: dict[str, Callable[[Feed], object]] = {
    "timeout": timeout,
    "parallel": lambda feed: positive_int(feed, "parallel", 1),
    "maxMaps": lambda feed: positive_int(feed, "maxMaps", 4),
    "preservePermission": lambda feed: flag(feed, "preservePermission", True),
}


@register
class ReplicationProperties(EntityRule[Feed]):
    code = "FD023"
    summary = "Replication properties (timeout, parallel, maxMaps, preservePermission) have valid values."
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        for name, check in _CHECKS.items():
            if name not in entity.properties:
                continue
            try:
                check(entity)
            except UsageError as err:
                sentence = str(err).replace(f"The property {name!r} of feed '{entity.name}'", f"properties.{name}")
                yield Finding(entity, sentence, ("properties", name))
