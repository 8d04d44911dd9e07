"""The lineage of one instance as an immutable graph: feed instances on a cluster and runs are the nodes, data
flows along the edges (an instance `read` by a run, a run that `wrote` an instance). A node reached by two paths
is one node, so the renderers show a shared input once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from toolkit.core.instances.fingerprints import Fingerprint

# What a run's input is now, compared with what the run read (`Edge.since_read`).
UNCHANGED, CHANGED, GONE, UNKNOWN = "unchanged", "changed", "evicted", "unknown"
READ, WROTE = "read", "wrote"


@dataclass(frozen=True)
class InstanceNode:
    """A feed instance on a cluster as it is now: `state` is its newest dataset event's kind (`published`,
    `replaced`, `evicted`), else `present` or `absent` from its files, else `unknown`; `fingerprint` is the
    newest publication's (or the files'); `notes` say what could not be traced and why."""

    feed: str
    cluster: str
    time: str
    state: str
    location: str | None = None
    fingerprint: Fingerprint | None = None
    event_id: str | None = None
    published: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return instance_key_of(self.feed, self.cluster, self.time)


@dataclass(frozen=True)
class RunNode:
    """A run that made data visible or read it: `kind` is `process`, `replication`, `hive-import`, or an outside
    producer's name from its event (`external`, `ingest`, `compaction`). A process run is one attempt of an
    instance (`process`, `time`, `attempt`); other runs name the instance they published in `time`."""

    kind: str
    cluster: str
    run_id: str | None
    time: str
    process: str | None = None
    feed: str | None = None
    attempt: int | None = None
    attempt_kind: str | None = None
    status: str | None = None
    started: str | None = None
    ended: str | None = None
    notes: tuple[str, ...] = ()
    commit: str | None = None  # the config repo's commit the run ran (Provenance.label), when it recorded one

    @property
    def key(self) -> str:
        if self.process is not None:
            return f"run:{self.cluster}:process:{self.process}:{self.time}:{self.attempt_kind}:{self.attempt}"
        return f"run:{self.cluster}:{self.kind}:{self.feed}:{self.time}:{self.run_id}"


Node = InstanceNode | RunNode


def instance_key_of(feed: str, cluster: str, time: str) -> str:
    return f"instance:{cluster}:{feed}:{time}"


@dataclass(frozen=True)
class Edge:
    """Data flowing from `source` to `target` (node keys). A `read` edge (instance to run) carries the input's
    name, the fingerprint as the run read it and `since_read`; a `wrote` edge (run to instance) the output's."""

    source: str
    target: str
    role: str
    name: str | None = None
    fingerprint: Fingerprint | None = None
    since_read: str | None = None


@dataclass(frozen=True)
class Lineage:
    """Every node reached from `root` within `up` producing levels and `down` reading levels, in walk order."""

    root: str
    up: int
    down: int
    nodes: Mapping[str, Node]
    edges: tuple[Edge, ...]

    def producers(self, key: str) -> list[Edge]:
        """The `wrote` edges into `key` (its producing runs), or the `read` edges into a run (its inputs)."""
        return [edge for edge in self.edges if edge.target == key]

    def consumers(self, key: str) -> list[Edge]:
        """The `read` edges out of an instance (its readers), or the `wrote` edges out of a run (its outputs)."""
        return [edge for edge in self.edges if edge.source == key]


@dataclass
class LineageBuilder:
    """Collects nodes and edges once each while a walk runs; `build` freezes them."""

    root: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str, str, str | None], Edge] = field(default_factory=dict)

    def add(self, node: Node) -> str:
        self.nodes.setdefault(node.key, node)
        return node.key

    def note(self, key: str, text: str) -> None:
        node = self.nodes[key]
        if text not in node.notes:
            self.nodes[key] = replace(node, notes=(*node.notes, text))

    def connect(self, edge: Edge) -> None:
        self.edges.setdefault((edge.source, edge.target, edge.role, edge.name), edge)

    def build(self, up: int, down: int) -> Lineage:
        return Lineage(self.root, up, down, MappingProxyType(dict(self.nodes)), tuple(self.edges.values()))
