"""The graph as a Mermaid flowchart (`toolkit graph --format mermaid`), for Markdown pages that render Mermaid:
clusters as cylinders, feeds as parallelograms, processes as rounded boxes, datasources as hexagons framed in
their colour, each filled with its status's colour; replication edges dotted and labelled with their feeds, import
and export edges in the datasources' colour and labelled `import` or `export`, a feed without producer dashed.

Node ids are `n0`, `n1` ... (Mermaid ids cannot hold `/`); labels are quoted, their quotes written `#quot;`.
"""

from __future__ import annotations

from toolkit.core.entities.kinds import Kind
from toolkit.views.graph.model import TRANSFER_EDGES, EdgeKind, Graph, Node
from toolkit.views.graph.palette import DATASOURCE, colour

SHAPES = {Kind.CLUSTER: ('[("', '")]'), Kind.FEED: ('[/"', '"/]'), Kind.PROCESS: ('("', '")'),
          Kind.DATASOURCE: ('{{"', '"}}')}
ARROWS = {EdgeKind.PRODUCER: "-->", EdgeKind.CONSUMER: "-->", EdgeKind.REPLICATION: "-.->",
          EdgeKind.IMPORT: "-->", EdgeKind.EXPORT: "-->"}
CLASSES = ["classDef noproducer stroke-dasharray: 5 5, stroke-width: 2px;",
           f"classDef datasource stroke: {DATASOURCE}, stroke-width: 2px;"]


def render_mermaid(graph: Graph) -> str:
    """`flowchart LR`, nodes then edges in the model's order, then the node colours and marks."""
    ids = {node.id: f"n{index}" for index, node in enumerate(graph.nodes)}
    lines = ["flowchart LR"]
    lines += [f"  {ids[node.id]}{_shape(node)}" for node in graph.nodes]
    for edge in graph.edges:
        label = f'|"{_escape(edge.label)}"|' if edge.label else ""
        lines.append(f"  {ids[edge.source]} {ARROWS[edge.kind]}{label} {ids[edge.target]}")
    lines += [f"  {line}" for line in CLASSES]
    for name, marked in (("noproducer", [node for node in graph.nodes if node.no_producer]),
                         ("datasource", [node for node in graph.nodes if node.kind is Kind.DATASOURCE])):
        if marked:
            lines.append(f"  class {','.join(ids[node.id] for node in marked)} {name};")
    transfers = [str(index) for index, edge in enumerate(graph.edges) if edge.kind in TRANSFER_EDGES]
    if transfers:  # Mermaid styles links by their order
        lines.append(f"  linkStyle {','.join(transfers)} stroke: {DATASOURCE}, color: {DATASOURCE};")
    lines += [f"  style {ids[node.id]} fill:{colour(node.status)}" for node in graph.nodes if node.status is not None]
    return "\n".join(lines) + "\n"


def _shape(node: Node) -> str:
    opening, closing = SHAPES[node.kind]
    return f"{opening}{_escape(node.label)}{closing}"


def _escape(text: str) -> str:
    return text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
