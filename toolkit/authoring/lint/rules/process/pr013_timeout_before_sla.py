"""PR013: the `timeout` is not shorter than an SLA's `shouldStartIn`.

Why:
Otherwise an instance waiting for its inputs times out before it is even late, and the SLA never fires. (The
order of shouldStartIn and shouldEndIn is PR012.) The process's own SLA is an error: Falcon refuses such a process
on submit (a month counted as 31 days, as here). A cluster's SLA is a warning: Falcon did not compare it.

Anti-pattern:

    timeout: minutes(30)
    sla: {shouldStartIn: hours(1), shouldEndIn: hours(2)}

Best practice:

    timeout: hours(1)
    sla: {shouldStartIn: hours(1), shouldEndIn: hours(2)}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import sla_blocks, where
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process
from toolkit.core.entities.problems import Severity


@register
class TimeoutBeforeSla(EntityRule[Process]):
    code = "PR013"
    summary = "The timeout is not shorter than an SLA's shouldStartIn (a cluster's SLA: warning)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        timeout = entity.timeout
        if timeout is None:
            return
        for prefix, sla in sla_blocks(entity):
            start = sla.should_start_in
            if start is None or timeout.approx_minutes() >= start.approx_minutes():
                continue
            own = prefix == ("sla",)  # the process's own SLA, which Falcon compares with the timeout
            yield Finding(
                entity,
                f"timeout {timeout} is shorter than {where(prefix)}.shouldStartIn {start}: an instance waiting for "
                f"its inputs would time out before it is even late, so the SLA never fires"
                f"{' (Falcon refuses such a process)' if own else ''}; make timeout at least {start}, or "
                f"shouldStartIn at most {timeout}.",
                ("timeout",),
                severity=None if own else Severity.WARNING,
            )
