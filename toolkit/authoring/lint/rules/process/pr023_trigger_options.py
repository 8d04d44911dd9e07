"""PR023: the trigger's options, and the fields around them, fit the kind of process.

Why:
`condition`, `max-batch`, `cut` and `ordered` shape the batches of a batch consumer (a process without frequency,
`trigger: data`). On a process run on time they do nothing; on a data-triggered process with a frequency, instance
T waits for every required instance of its windows, so `condition: any` and batch options mean nothing either.
Silently ignored options hide a misunderstanding. A batch consumer, in turn, reads every published instance of its
inputs: `optional` inputs (use `condition: any`) and `late-process` (a late instance is a new event its next batch
consumes) do not apply; `ordered: true` runs one batch at a time, so `parallel` above 1 contradicts it; and `cut`
is an instant fixed by the sweep's time, so it cannot pick among available instances (latest(), future()). And the
sweep finds the instances of a data-triggered process with a frequency that an event completes by inverting its
windows: a window that picks among available instances or steps back at a DST change (dateOffset by a calendar
unit) cannot be inverted, and the sweep would skip the process.

Anti-pattern:

    frequency: hours(1)
    trigger: {on: data, max-batch: 10}

Best practice: a batch consumer.

    trigger: {on: data, max-batch: 10}
    inputs: [{name: clicks, feed: clicks}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.authoring.lint.rules.process._support import time_expression
from toolkit.core.entities.document import FieldPath
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Condition, Process
from toolkit.core.instances.window_inverse import why_not_invertible


@register
class TriggerOptions(EntityRule[Process]):
    code = "PR023"
    summary = "The trigger's options, and the fields around them, fit the kind of process (batch consumer or not)."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        if not entity.is_batch_consumer:
            yield from self._batch_options(entity)
            if entity.is_data_triggered:
                yield from self._uninvertible_windows(entity, ctx)
            return
        trigger = entity.trigger
        for index, item in enumerate(entity.inputs):
            if item.optional:
                yield Finding(entity, f"inputs[{index}].optional is true, but a batch consumer reads whatever of its "
                              "inputs is published: remove it, and set trigger.condition: any to run when any one "
                              "input has new instances.", ("inputs", index, "optional"))
        if entity.late_process is not None:
            yield Finding(entity, "late-process is set, but a batch consumer has no input windows to rerun: a late "
                          "instance is a new event that its next batch consumes; remove late-process.",
                          ("late-process",), at_key=True)
        if trigger.ordered and entity.parallel > 1:
            yield Finding(entity, f"parallel is {entity.parallel}, but trigger.ordered true runs one batch at a "
                          "time: set parallel to 1, or ordered to false.", ("parallel",))
        cut = time_expression(ctx, trigger.cut)
        if cut is not None and cut.needs_available:
            yield Finding(entity, f"trigger.cut {trigger.cut!r} picks among available instances, but the cut is an "
                          "instant fixed by the sweep's time: write one such as now(-1,0) or today(0,0).",
                          ("trigger", "cut"))

    def _uninvertible_windows(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        """Windows the sweep cannot invert (core/instances/window_inverse.py): it would skip the process."""
        for index, item in enumerate(entity.inputs):
            for key, text in (("start", item.start), ("end", item.end)):
                expression = time_expression(ctx, text)
                why = None if expression is None else why_not_invertible(expression)
                if why is not None:
                    yield Finding(entity, f"inputs[{index}].{key} {text!r} cannot be triggered by data (the sweep "
                                  f"finds the instances an event completes by inverting the window): {why}.",
                                  ("inputs", index, key))

    def _batch_options(self, entity: Process) -> Iterator[Finding]:
        """Batch options on a process with a frequency, which runs instances, not batches."""
        trigger = entity.trigger
        options: list[tuple[FieldPath, str]] = []
        if trigger.condition is Condition.ANY:
            options.append((("trigger", "condition"), "trigger.condition any"))
        if trigger.max_batch is not None:
            options.append((("trigger", "max-batch"), f"trigger.max-batch {trigger.max_batch}"))
        if trigger.cut is not None:
            options.append((("trigger", "cut"), f"trigger.cut {trigger.cut!r}"))
        if trigger.ordered:
            options.append((("trigger", "ordered"), "trigger.ordered true"))
        how = ("its instances wait for every required instance of their windows" if entity.is_data_triggered
               else "it runs on time, at its nominal times")
        for path, option in options:
            yield Finding(entity, f"{option} is for batch consumers (processes without frequency), but this process "
                          f"has a frequency and {how}: remove it, or remove the frequency and the input windows to "
                          "make it a batch consumer.", path)
