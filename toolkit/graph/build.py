"""The graph of a config repo: its clusters, feeds and processes as nodes; an edge from each process to the
feeds it writes (producer), from each feed to the processes reading it (consumer), and from each source
cluster to each target cluster of the feeds replicated between them (replication, one edge per pair).

Restricted to a cluster, the graph holds the feeds and processes on it, that cluster, and the clusters it
replicates with. A feed that processes read and that nothing in the repo writes (no process output, no
`ingest`) is marked `no_producer`: someone outside must write it (`toolkit publish`), so it is where a
pipeline starts, or stalls.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.entities.kinds import EntityRef, Kind
from toolkit.entities.model import Entity, Feed, FeedClusterType, FeedUse
from toolkit.entities.repo import ConfigRepo
from toolkit.graph.model import Edge, EdgeKind, Graph, Node


def build_graph(repo: ConfigRepo, cluster: str | None = None) -> Graph:
    """The whole repo's graph, or the part of it on `cluster` (UsageError naming an unknown cluster)."""
    if cluster is not None:
        repo.cluster(cluster)
    feeds = [feed for feed in repo.feeds.values() if cluster is None or feed.cluster(cluster) is not None]
    processes = [process for process in repo.processes.values()
                 if cluster is None or process.cluster(cluster) is not None]
    written = {output.feed for process in repo.processes.values() for output in process.outputs}
    read = {item.feed for process in repo.processes.values() for item in process.inputs}
    here_id = None if cluster is None else str(EntityRef(Kind.CLUSTER, cluster))
    replication = [edge for edge in _replication_edges(feeds)
                   if here_id is None or here_id in (edge.source, edge.target)]
    linked = {name for edge in replication for name in (edge.source, edge.target)}
    clusters = [found for found in repo.clusters.values()
                if here_id is None or str(found.ref) == here_id or str(found.ref) in linked]
    nodes = [_node(found) for found in clusters]
    nodes += [_node(feed, no_producer=feed.name in read and feed.name not in written and feed.ingest is None)
              for feed in feeds]
    nodes += [_node(process) for process in processes]
    shown = {node.id for node in nodes}
    edges = list(replication)
    for process in processes:
        here = str(process.ref)
        edges += [Edge(here, _feed_id(feed), EdgeKind.PRODUCER) for feed in _feeds(process.outputs)]
        edges += [Edge(_feed_id(feed), here, EdgeKind.CONSUMER) for feed in _feeds(process.inputs)]
    return Graph(title=repo.root.resolve().name, cluster=cluster,
                 nodes=tuple(nodes), edges=tuple(edge for edge in edges if {edge.source, edge.target} <= shown))


def _node(entity: Entity, no_producer: bool = False) -> Node:
    return Node(id=str(entity.ref), kind=entity.kind, label=entity.name, file=str(entity.source_file),
                definition=entity.source_file.read_text(encoding="utf-8"), no_producer=no_producer)


def _feed_id(name: str) -> str:
    return str(EntityRef(Kind.FEED, name))


def _feeds(uses: Iterable[FeedUse]) -> list[str]:
    """One edge per feed, however many inputs (or outputs) of the process name it."""
    return list(dict.fromkeys(use.feed for use in uses))


def _replication_edges(feeds: Iterable[Feed]) -> list[Edge]:
    """Source cluster -> target cluster, with every feed that goes that way, in repo order."""
    pairs: dict[tuple[str, str], list[str]] = {}
    for feed in feeds:
        sources = [c.name for c in feed.clusters if c.type is FeedClusterType.SOURCE]
        targets = [c.name for c in feed.clusters if c.type is FeedClusterType.TARGET]
        for source in sources:
            for target in targets:
                pairs.setdefault((source, target), []).append(feed.name)
    return [Edge(str(EntityRef(Kind.CLUSTER, source)), str(EntityRef(Kind.CLUSTER, target)), EdgeKind.REPLICATION,
                 tuple(names)) for (source, target), names in pairs.items()]
