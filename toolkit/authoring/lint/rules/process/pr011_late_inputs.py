"""PR011: each `late-process` late input names an input of the process whose feed has a `late-arrival` cut-off.

Why:
Without a cut-off, the feed's data is never late and the rerun never happens; a name that is no input of the
process names nothing to rerun for.

Anti-pattern:

    late-process:
      policy: exp-backoff
      delay: hours(1)
      late-inputs: [{input: clickz, workflow-path: workflows/late.py}]

Best practice:

    late-process:
      policy: exp-backoff
      delay: hours(1)
      late-inputs: [{input: clicks, workflow-path: workflows/late.py}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class LateInputs(EntityRule[Process]):
    code = "PR011"
    summary = "Each late input names an input of the process whose feed has a late-arrival cut-off."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if entity.late_process is None:
            return
        for index, late in enumerate(entity.late_process.late_inputs):
            path = ("late-process", "late-inputs", index, "input")
            field = f"late-process.late-inputs[{index}].input '{late.input}'"
            item = entity.input(late.input)
            if item is None:
                names = ", ".join(i.name for i in entity.inputs)
                valid = f"name one of its inputs: {names}." if names else "the process has no inputs to name."
                yield Finding(entity, f"{field} is not an input of the process; {valid}", path)
                continue
            feed = ctx.repo.feeds.get(item.feed)
            if feed is not None and feed.late_arrival is None:
                yield Finding(
                    entity,
                    f"{field} reads feed '{feed.name}', which has no late-arrival cut-off, so its data is never "
                    f"late and the rerun never happens; add `late-arrival: {{cut-off: hours(n)}}` to feed "
                    f"'{feed.name}', or remove this late input.",
                    path,
                )
