"""No module of the toolkit imports itself back through others: import-linter's contracts (make lint) check the
layers and the cycles between siblings; this checks every module-level cycle, a package's `__init__` and its own
modules included (grimp, the graph import-linter builds on)."""

from __future__ import annotations

import grimp

from toolkit.authoring.lint.graph_cycles import cycles


def test_the_toolkit_has_no_import_cycle() -> None:
    graph = grimp.build_graph("toolkit")
    edges = {module: sorted(graph.find_modules_directly_imported_by(module)) for module in sorted(graph.modules)}
    assert cycles(edges) == []


def test_a_cycle_through_a_package_init_is_found() -> None:
    assert cycles({"p": ["p.a"], "p.a": ["p"], "p.b": ["p.a"]}) == [["p", "p.a"]]
