"""Cycles in a directed graph given as node -> the nodes it points to: processes through their feeds (RP005),
and the toolkit's own modules through their imports (tests/unit/test_import_cycles.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def cycles(edges: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node, each sorted (Tarjan's algorithm, iterative: a
    long chain does not reach Python's recursion limit)."""
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
