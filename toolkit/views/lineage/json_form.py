"""`--format json`: the lineage as one JSON document for scripts, stable and versioned (`format`, `version`;
docs/lineage.md lists every field). Nodes come in walk order, the start first; edges point the way data flows."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from toolkit.views.lineage.graph import Edge, InstanceNode, Lineage, Node

FORMAT, VERSION = "feed-toolkit.lineage", 1


def lineage_json(lineage: Lineage) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "root": lineage.root, "up": lineage.up, "down": lineage.down,
            "nodes": [_node(node) for node in lineage.nodes.values()],
            "edges": [_edge(edge) for edge in lineage.edges]}


def _node(node: Node) -> dict[str, Any]:
    kind = "instance" if isinstance(node, InstanceNode) else "run"
    values = {f.name: getattr(node, f.name) for f in fields(node)}
    values["notes"] = list(node.notes)
    if values.get("fingerprint") is not None:
        values["fingerprint"] = values["fingerprint"].to_json()
    return {"key": node.key, "type": kind, **values}


def _edge(edge: Edge) -> dict[str, Any]:
    return {"from": edge.source, "to": edge.target, "role": edge.role, "name": edge.name,
            "fingerprint": edge.fingerprint.to_json() if edge.fingerprint is not None else None,
            "since_read": edge.since_read}
