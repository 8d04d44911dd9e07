"""PR008: an output names one instance the run writes, fixed by its nominal time.

Why:
latest() and future() pick among instances that already exist, so the instance written would depend on when the
run happens. (That the expression gives a time is PR005's.)

Anti-pattern:

    outputs: [{name: summary, feed: clicks-hourly-summary, instance: latest(0)}]

Best practice:

    outputs: [{name: summary, feed: clicks-hourly-summary, instance: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import EXAMPLES, time_expression
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class OutputSingleInstance(EntityRule[Process]):
    code = "PR008"
    summary = "An output instance is a single-instance expression (no latest() or future())."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        for index, item in enumerate(entity.outputs):
            parsed = time_expression(ctx, item.instance)
            if parsed is None or not parsed.needs_available:
                continue
            used = " and ".join(f"{name}()" for name in sorted(parsed.functions & {"latest", "future"}))
            yield Finding(
                entity,
                f"outputs[{index}].instance {item.instance!r} uses {used}, which picks among instances that "
                "already exist; an output is the one instance the run writes: use an expression of the nominal "
                f"time such as {EXAMPLES}.",
                ("outputs", index, "instance"),
            )
