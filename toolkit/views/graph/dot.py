"""The graph as Graphviz dot (`toolkit graph --format dot`): clusters as 3-D boxes, feeds as notes, processes
as rounded boxes, datasources as cylinders framed in their colour, each filled with its status's colour;
replication edges dashed and labelled with their feeds, import and export edges in the datasources' colour and
labelled `import` or `export`, a feed without producer drawn dashed. `dot -Tsvg` lays it out."""

from __future__ import annotations

from toolkit.core.entities.kinds import Kind
from toolkit.views.graph.model import TRANSFER_EDGES, Edge, EdgeKind, Graph, Node
from toolkit.views.graph.palette import DATASOURCE, colour

SHAPES = {Kind.CLUSTER: "box3d", Kind.FEED: "note", Kind.PROCESS: "box", Kind.DATASOURCE: "cylinder"}
EDGE_STYLES = {EdgeKind.PRODUCER: "solid", EdgeKind.CONSUMER: "solid", EdgeKind.REPLICATION: "dashed",
               EdgeKind.IMPORT: "solid", EdgeKind.EXPORT: "solid"}


def render_dot(graph: Graph) -> str:
    """The whole graph as one `digraph`, nodes then edges, in the model's order."""
    lines = [f"digraph {_quote(graph.title)} {{",
             "  graph [rankdir=LR, nodesep=0.2, ranksep=0.6];",
             '  node [fontname="Helvetica", fontsize=11, style=filled, fillcolor="#ffffff"];',
             '  edge [color="#555555"];']
    lines += [f"  {_node(node)}" for node in graph.nodes]
    lines += [f"  {_edge(edge)}" for edge in graph.edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node(node: Node) -> str:
    style = ["filled", "rounded"] if node.kind is Kind.PROCESS else ["filled"]
    notes = [f"{node.kind.value} {node.label}"]
    if node.no_producer:
        style.append("dashed")
        notes.append("no producer")
    if node.status is not None:
        notes.append(f"status {node.status}")
    attributes = {"label": node.label, "shape": SHAPES[node.kind], "style": ",".join(style),
                  "fillcolor": colour(node.status), "tooltip": "; ".join(notes)}
    if node.kind is Kind.DATASOURCE:
        attributes.update(color=DATASOURCE, penwidth="2")
    return f"{_quote(node.id)} [{_attributes(attributes)}];"


def _edge(edge: Edge) -> str:
    attributes = {"class": edge.kind.value, "style": EDGE_STYLES[edge.kind]}
    if edge.kind in TRANSFER_EDGES:
        attributes.update(color=DATASOURCE, fontcolor=DATASOURCE, label=edge.label)
    elif edge.label:
        attributes.update(label=edge.label, tooltip=", ".join(edge.feeds))
    return f"{_quote(edge.source)} -> {_quote(edge.target)} [{_attributes(attributes)}];"


def _attributes(values: dict[str, str]) -> str:
    return ", ".join(f"{key}={_quote(value)}" for key, value in values.items())


def _quote(text: str) -> str:
    """A dot string: every value is quoted, backslashes and quotes escaped, so no name can break the file."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
