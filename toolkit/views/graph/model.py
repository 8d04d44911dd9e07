"""The graph every renderer draws: plain immutable nodes and edges, built once (`build.py`), coloured from a
ledger (`ledger_statuses.py`), and written by the HTML, dot and Mermaid renderers, which therefore agree."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from toolkit.core.entities.kinds import Kind

# A replication edge names its feeds in its label up to this many; beyond, it names the first ones and a count.
LABEL_FEEDS = 2

# The kinds drawn as nodes, every entity kind of a repo.
DRAWN_KINDS = (Kind.CLUSTER, Kind.FEED, Kind.PROCESS, Kind.DATASOURCE)


class EdgeKind(str, Enum):
    """producer: process -> the feed it writes; consumer: feed -> the process reading it; replication: the
    source cluster -> the target cluster of one or more feeds; import: a datasource -> the feed a cluster's
    `import` fills from it; export: a feed -> the datasource a cluster's `export` writes it into."""

    PRODUCER = "producer"
    CONSUMER = "consumer"
    REPLICATION = "replication"
    IMPORT = "import"
    EXPORT = "export"


# The edges between a feed and a datasource: labelled with their kind.
TRANSFER_EDGES = (EdgeKind.IMPORT, EdgeKind.EXPORT)


@dataclass(frozen=True)
class Instance:
    """One recent instance shown in a node's details: a process instance record, a feed instance's last
    dataset event (its status is then the event's kind: published, replaced, evicted), or a datasource's import
    or export record of a feed instance (`what` then says which: `import customers`)."""

    time: str
    status: str
    run_id: str | None
    what: str | None = None


@dataclass(frozen=True)
class Node:
    """`id` is `kind/name`; `definition` is the entity's YAML file as written, `file` where it is."""

    id: str
    kind: Kind
    label: str
    file: str
    definition: str
    no_producer: bool = False  # a feed that processes read and nothing in the repo writes (nor imports)
    status: str | None = None  # the latest instance's, when a ledger was read
    recent: tuple[Instance, ...] = ()  # newest first


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: EdgeKind
    feeds: tuple[str, ...] = ()  # the feeds a replication edge carries

    @property
    def label(self) -> str:
        """The feeds of a replication edge (`a, b and 3 more`); `import` or `export` for an edge between a feed
        and a datasource; producer and consumer edges have none."""
        if self.kind in TRANSFER_EDGES:
            return self.kind.value
        if len(self.feeds) <= LABEL_FEEDS:
            return ", ".join(self.feeds)
        return f"{', '.join(self.feeds[:LABEL_FEEDS])} and {len(self.feeds) - LABEL_FEEDS} more"


@dataclass(frozen=True)
class Graph:
    """`cluster` is the one the graph was restricted to (and whose ledger coloured it, when `ledger`)."""

    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    cluster: str | None = None
    ledger: bool = False

    def counts(self) -> dict[str, int]:
        """How many nodes of each kind (plural names) and edges: what the command reports having drawn."""
        found = {kind.folder: sum(1 for node in self.nodes if node.kind is kind) for kind in DRAWN_KINDS}
        return {**found, "edges": len(self.edges)}

    def as_json(self) -> dict[str, Any]:
        """The document the HTML page embeds and draws."""
        return {
            "title": self.title,
            "cluster": self.cluster,
            "ledger": self.ledger,
            "nodes": [{"id": node.id, "kind": node.kind.value, "label": node.label, "file": node.file,
                       "definition": node.definition, "no_producer": node.no_producer, "status": node.status,
                       "recent": [{"time": item.time, "status": item.status, "run_id": item.run_id,
                                   "what": item.what} for item in node.recent]}
                      for node in self.nodes],
            "edges": [{"source": edge.source, "target": edge.target, "kind": edge.kind.value, "label": edge.label,
                       "feeds": list(edge.feeds)} for edge in self.edges],
        }
