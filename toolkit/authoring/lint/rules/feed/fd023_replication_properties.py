"""FD023: the feed's replication properties hold values the replication action accepts.

Why:
`timeout` is a frequency, `parallel` and `maxMaps` whole numbers of at least 1, `preservePermission` true or
false, `replication.distributed-above-bytes` a size (`1GB`, `536870912`) and `replication.distributed-above-files`
a whole number of 0 or more (toolkit/core/entities/replication_settings.py reads them): a bad value would stop the run
with exit 2.

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

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.feed._common import property_findings
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Feed
from toolkit.core.entities.replication_settings import (
    DEFAULT_DISTRIBUTED_BYTES,
    DEFAULT_DISTRIBUTED_FILES,
    DISTRIBUTED_BYTES,
    DISTRIBUTED_FILES,
    count,
    flag,
    positive_int,
    size,
    timeout,
)

_CHECKS: dict[str, Callable[[Feed], object]] = {
    "timeout": timeout,
    "parallel": lambda feed: positive_int(feed, "parallel", 1),
    "maxMaps": lambda feed: positive_int(feed, "maxMaps", 4),
    "preservePermission": lambda feed: flag(feed, "preservePermission", True),
    DISTRIBUTED_BYTES: lambda feed: size(feed, DISTRIBUTED_BYTES, DEFAULT_DISTRIBUTED_BYTES),
    DISTRIBUTED_FILES: lambda feed: count(feed, DISTRIBUTED_FILES, DEFAULT_DISTRIBUTED_FILES),
}


@register
class ReplicationProperties(EntityRule[Feed]):
    code = "FD023"
    summary = ("Replication properties (timeout, parallel, maxMaps, preservePermission, replication.distributed-above-"
               "bytes and -files) have valid values.")
    kind = Kind.FEED

    def check_entity(self, entity: Feed, ctx: LintContext) -> Iterator[Finding]:
        yield from property_findings(entity, _CHECKS)
