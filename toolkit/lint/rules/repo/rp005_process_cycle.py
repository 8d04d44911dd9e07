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

from toolkit.entities.model import Process
from toolkit.lint.context import LintContext
from toolkit.lint.rule import Finding, Rule, register


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
        for component in _cycles(edges):
            names = " -> ".join([*component, component[0]])
            for name in component:
                process: Process = processes[name]
                index = next((i for i, item in enumerate(process.outputs)
                              if any(r.name in component for r in ctx.readers.get(item.feed, ()))), 0)
                yield Finding(process, f"processes form a cycle through their feeds ({names}); "
                              "break it: one of them must not read what the others write.", ("outputs", index, "feed"))


def _cycles(edges: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with more than one process (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if child < len(targets):
                work.append((node, child + 1))
                target = targets[child]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found
