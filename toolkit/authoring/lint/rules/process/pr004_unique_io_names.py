"""PR004: input and output names are unique across both lists.

Why:
The workflow refers to its inputs and outputs by name: two with one name make one of them unreachable.

Anti-pattern:

    inputs: [{name: clicks, feed: clicks, start: now(0,0), end: now(0,0)}]
    outputs: [{name: clicks, feed: clicks-hourly-summary, instance: now(0,0)}]

Best practice:

    inputs: [{name: clicks, feed: clicks, start: now(0,0), end: now(0,0)}]
    outputs: [{name: summary, feed: clicks-hourly-summary, instance: now(0,0)}]
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.rule import EntityRule, Finding, register
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import Process


@register
class UniqueInputOutputNames(EntityRule[Process]):
    code = "PR004"
    summary = "Input and output names are unique across inputs and outputs."
    kind = Kind.PROCESS

    def check_entity(self, entity: Process, ctx: LintContext) -> Iterator[Finding]:
        first: dict[str, str] = {}
        for field, items in (("inputs", entity.inputs), ("outputs", entity.outputs)):
            for index, item in enumerate(items):
                here = f"{field}[{index}]"
                if item.name in first:
                    yield Finding(
                        entity,
                        f"{here}.name '{item.name}' is already the name of {first[item.name]}; give every input "
                        "and output its own name (the workflow refers to them by name).",
                        (field, index, "name"),
                    )
                else:
                    first[item.name] = here
