"""PR021: a process triggered by data has inputs.

Why:
With `trigger: data` a run starts when its inputs are published; a process without inputs is never started
(AIP-48 requires a dataset-triggered DAG to name its datasets). Give it the inputs it waits for, or run it on time.

Anti-pattern:

    frequency: hours(1)
    trigger: data
    outputs: [{name: clicks, feed: clicks, instance: "now(0,0)"}]

Best practice:

    frequency: hours(1)
    outputs: [{name: clicks, feed: clicks, instance: "now(0,0)"}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class DataTriggerNeedsInputs(EntityRule[Process]):
    code = "PR021"
    summary = "A process triggered by data has inputs."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if entity.is_data_triggered and not entity.inputs:
            yield Finding(entity, "trigger is on data, but the process has no inputs: no publication would ever "
                          "start it; add the inputs it waits for, or remove `trigger` to run it at nominal times"
                          + (" (with a frequency)." if entity.is_batch_consumer else "."), ("trigger",))
