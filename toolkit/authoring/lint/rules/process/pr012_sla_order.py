"""PR012: an SLA's `shouldStartIn` is not longer than its `shouldEndIn`.

Why:
An instance cannot be late to end before it is late to start. Both the process's SLA and each cluster's are
checked; calendar units compare by Falcon's nominal lengths (a day is 24 hours, a month 31 days).

Anti-pattern:

    sla: {shouldStartIn: hours(3), shouldEndIn: hours(2)}

Best practice:

    sla: {shouldStartIn: hours(1), shouldEndIn: hours(2)}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import sla_blocks, where
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class SlaOrder(EntityRule[Process]):
    code = "PR012"
    summary = "An SLA's shouldStartIn is at most its shouldEndIn."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for prefix, sla in sla_blocks(entity):
            start, end = sla.should_start_in, sla.should_end_in
            if start is None or end is None or start.approx_minutes() <= end.approx_minutes():
                continue
            block = where(prefix)
            yield Finding(
                entity,
                f"{block}.shouldStartIn {start} is longer than {block}.shouldEndIn {end}: an instance would be due "
                f"to end before it is due to start; make shouldStartIn at most {end}, or shouldEndIn at least "
                f"{start}.",
                (*prefix, "shouldStartIn"),
            )
