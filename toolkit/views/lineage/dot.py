"""`--format dot`: the lineage as a Graphviz digraph (`toolkit lineage ... --format dot | dot -Tsvg > lineage.svg`).
Feed instances are ellipses, runs boxes, the start is drawn bold; an input that changed or was evicted since its
run read it is a red edge labelled so."""

from __future__ import annotations

import json
from collections.abc import Iterator

from toolkit.views.lineage.graph import CHANGED, GONE, InstanceNode, Lineage, Node


def lineage_dot(lineage: Lineage) -> Iterator[str]:
    ids = {key: f"n{index}" for index, key in enumerate(lineage.nodes)}
    yield "digraph lineage {"
    yield "  rankdir=LR;"
    yield '  node [fontname="Helvetica", fontsize=10];'
    for key, node in lineage.nodes.items():
        bold = ", style=bold" if key == lineage.root else ""
        shape = "ellipse" if isinstance(node, InstanceNode) else "box"
        yield f"  {ids[key]} [shape={shape}, label={_quoted(_label(node))}{bold}];"
    for edge in lineage.edges:
        attributes = []
        if edge.name:
            attributes.append(f"label={_quoted(edge.name)}")
        if edge.since_read in (CHANGED, GONE):
            attributes += ["color=red", f"xlabel={_quoted(edge.since_read + ' since read')}"]
        extra = f" [{', '.join(attributes)}]" if attributes else ""
        yield f"  {ids[edge.source]} -> {ids[edge.target]}{extra};"
    yield "}"


def _label(node: Node) -> str:
    if isinstance(node, InstanceNode):
        return f"{node.feed}\n{node.time}\non {node.cluster}: {node.state}"
    head = f"process {node.process}" if node.process is not None else f"{node.kind} of {node.feed}"
    run = f"\nrun {node.run_id}" if node.run_id else ""
    return f"{head}\n{node.time} on {node.cluster}{run}\n{node.status or 'no status'}"


def _quoted(text: str) -> str:
    """A DOT string: JSON's escaping of quotes and backslashes is DOT's, and `\\n` is DOT's line break too."""
    return json.dumps(text, ensure_ascii=False)
