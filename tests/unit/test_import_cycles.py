"""No module of the toolkit imports itself back through others: import-linter's contracts (make lint) check the
layers and the cycles between siblings; this checks every module-level cycle, a package's `__init__` and its own
modules included (grimp, the graph import-linter builds on)."""

from __future__ import annotations

import grimp


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    edges = {module: sorted(graph.find_modules_directly_imported_by(module)) for module in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            module, position = work.pop()
            if position == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            targets = edges.get(module, [])
            if position < len(targets):
                work.append((module, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    return cycles


def test_the_toolkit_has_no_import_cycle() -> None:
    assert import_cycles(grimp.build_graph("toolkit")) == []


def test_a_cycle_is_found() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [("p", "p.a"), ("p.a", "p"), ("p.b", "p.a")]:
        graph.add_import(importer=importer, imported=imported)
    assert import_cycles(graph) == [["p", "p.a"]]
