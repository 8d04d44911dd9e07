"""RP005: no cycle between processes through their feeds.

Why:
When A writes what B reads and B writes what A reads, their instances wait for each other forever. A process
reading its own output (an earlier instance, for incremental state) is not a cycle.

Anti-pattern: processes/a.yaml and processes/b.yaml.

    - {name: a, inputs: [{feed: y}], outputs: [{feed: x}]}
    - {name: b, inputs: [{feed: x}], outputs: [{feed: y}]}

Best practice:

    - {name: a, inputs: [{feed: w}], outputs: [{feed: x}]}
    - {name: b, inputs: [{feed: x}], outputs: [{feed: y}]}
"""

from __future__ import annotations

from collections.abc import Iterator

from toolkit.authoring.lint.context import LintContext
from toolkit.authoring.lint.graph_cycles import cycles
from toolkit.authoring.lint.rule import Finding, Rule, register
from toolkit.core.entities.model import Process


@register
class ProcessCycle(Rule):
    code = "RP005"
    summary = "No cycle between processes through their feeds."
    reports_outside_selection = True

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        processes = ctx.repo.processes
        edges = {
            name: sorted({reader.name for item in process.outputs for reader in ctx.readers.get(item.feed, ())
                          if reader.name != name})
            for name, process in processes.items()
        }
        for component in cycles(edges):
            names = " -> ".join([*component, component[0]])
            for name in component:
                process: Process = processes[name]
                index = next((i for i, item in enumerate(process.outputs)
                              if any(r.name in component for r in ctx.readers.get(item.feed, ()))), 0)
                yield Finding(process, f"processes form a cycle through their feeds ({names}); "
                              "break it: one of them must not read what the others write.", ("outputs", index, "feed"))
