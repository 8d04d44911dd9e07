"""`--format text`: the lineage as an indented tree a data engineer pastes into a ticket. The start first, then
`upstream:` (each `<-` line is what the line above came from) and `downstream:` (each `->` line is what read or was
written from the line above). A node met again is printed once more with `(shown above)` and not expanded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.views.lineage.graph import READ, Edge, InstanceNode, Lineage, Node, RunNode

_INDENT = "  "


def lineage_lines(lineage: Lineage) -> Iterator[str]:
    root = lineage.nodes[lineage.root]
    yield _describe(root)
    yield from _notes(root, _INDENT)
    seen = {lineage.root}
    yield f"upstream ({lineage.up} level{'' if lineage.up == 1 else 's'}):"
    up = list(_up(lineage, lineage.root, 1, seen))
    yield from up or [f"{_INDENT}nothing traced"]
    seen = {lineage.root}
    yield f"downstream ({lineage.down} level{'' if lineage.down == 1 else 's'}):"
    down = list(_down(lineage, lineage.root, 1, seen))
    yield from down or [f"{_INDENT}nothing traced"]


def _up(lineage: Lineage, key: str, depth: int, seen: set[str]) -> Iterator[str]:
    for edge in lineage.producers(key):
        yield from _line(lineage, edge.source, edge, "<-", depth, seen, lambda k: _up(lineage, k, depth + 1, seen))


def _down(lineage: Lineage, key: str, depth: int, seen: set[str]) -> Iterator[str]:
    for edge in lineage.consumers(key):
        yield from _line(lineage, edge.target, edge, "->", depth, seen, lambda k: _down(lineage, k, depth + 1, seen))


def _line(lineage: Lineage, key: str, edge: Edge, arrow: str, depth: int, seen: set[str],
          further: Any) -> Iterator[str]:
    node = lineage.nodes[key]
    indent = _INDENT * depth
    text = f"{indent}{arrow} {_edge_prefix(edge)}{_describe(node, edge)}"
    if key in seen:
        yield f"{text} (shown above)"
        return
    seen.add(key)
    yield text
    yield from _notes(node, indent + _INDENT + "  ")
    yield from further(key)


def _edge_prefix(edge: Edge) -> str:
    return f"[{edge.name}] " if edge.name else ""


def _describe(node: Node, edge: Edge | None = None) -> str:
    if isinstance(node, InstanceNode):
        return _instance(node, edge if edge is not None and edge.role == READ else None)
    run = _run(node)
    if edge is not None and edge.role == READ:  # downstream: the run read the instance on the line above
        read = f"read {_fingerprint(edge.fingerprint)}, " if edge.fingerprint else ""
        return f"{run}; {read}{edge.since_read} since read"
    return run


def _instance(node: InstanceNode, read: Edge | None) -> str:
    """`feed time on cluster`, what the run below read of it and how it compares now, its state and where."""
    head = f"{node.feed} {node.time} on {node.cluster}"
    now = node.state + (f" {node.published}" if node.published else "")
    if node.fingerprint:
        now += f", {_fingerprint(node.fingerprint)}"
    where = f" at {node.location}" if node.location else ""
    if read is None:
        return f"{head}: {now}{where}"
    seen = f"read {_fingerprint(read.fingerprint)}, " if read.fingerprint else ""
    return f"{head}: {seen}{read.since_read} since read (now {now}){where}"


def _run(node: RunNode) -> str:
    if node.process is not None:
        attempt = f", attempt {node.attempt} ({node.attempt_kind})" if node.attempt is not None else ""
        head = f"process {node.process} {node.time} on {node.cluster}{attempt}"
    else:
        head = f"{node.kind} of {node.feed} {node.time} into {node.cluster}"
    run = f", run {node.run_id}" if node.run_id else ""
    run += f", config {node.commit}" if node.commit else ""
    status = f": {node.status}" if node.status else ""
    span = node.ended if node.started is None else f"{node.started} to {node.ended or '...'}"
    return f"{head}{run}{status}{f', {span}' if span else ''}"


def _fingerprint(fingerprint: Fingerprint | None) -> str:
    if fingerprint is None:
        return "nothing"
    files = fingerprint.files
    return f"{fingerprint.digest[:12]} ({files} file{'' if files == 1 else 's'}, {fingerprint.bytes} B)"


def _notes(node: Node, indent: str) -> Iterator[str]:
    return (f"{indent}! {note}" for note in node.notes)
