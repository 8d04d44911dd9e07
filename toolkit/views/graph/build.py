"""The graph of a config repo: its clusters, feeds, processes and datasources as nodes; an edge from each
process to the feeds it writes (producer), from each feed to the processes reading it (consumer), from each
source cluster to each target cluster of the feeds replicated between them (replication, one edge per pair),
from a datasource to each feed a cluster's `import` fills from it (import) and from each feed a cluster's
`export` writes into a datasource to it (export), one edge per feed and datasource whatever the clusters.

Restricted to a cluster, the graph holds the feeds and processes on it, that cluster, the clusters it
replicates with, and the datasources its feeds import from or export to there; the whole repo's graph holds every
datasource, one that no feed names too. A feed that processes read and that nothing in the repo writes (no
process output, no `ingest`, no `import`) is marked `no_producer`: someone outside must write it (`toolkit
publish`), so it is where a pipeline starts, or stalls.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import Cluster, Datasource, Entity, Feed, FeedCluster, FeedClusterType, FeedUse
from toolkit.core.entities.repo import ConfigRepo
from toolkit.secrets_masking import inline_secret, masked, secret_settings
from toolkit.views.graph.model import Edge, EdgeKind, Graph, Node

PASSWORD_KEY = "passwordText"
# What stands for a line that names a password-text in a datasource's definition.
_HIDDEN_PASSWORD = f"# ({PASSWORD_KEY} hidden)"


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
    transfers = _transfer_edges(feeds, cluster)
    used = {edge.source if edge.kind is EdgeKind.IMPORT else edge.target for edge in transfers}
    datasources = [found for found in repo.datasources.values() if cluster is None or str(found.ref) in used]
    nodes = [_node(found) for found in clusters]
    nodes += [_node(feed, no_producer=feed.name in read and feed.name not in written and feed.ingest is None
                    and not any(on.import_ is not None for on in feed.clusters))
              for feed in feeds]
    nodes += [_node(process) for process in processes]
    nodes += [_node(found) for found in datasources]
    shown = {node.id for node in nodes}
    edges = list(replication)
    for process in processes:
        here = str(process.ref)
        edges += [Edge(here, _feed_id(feed), EdgeKind.PRODUCER) for feed in _feeds(process.outputs)]
        edges += [Edge(_feed_id(feed), here, EdgeKind.CONSUMER) for feed in _feeds(process.inputs)]
    edges += transfers
    return Graph(title=repo.root.resolve().name, cluster=cluster,
                 nodes=tuple(nodes), edges=tuple(edge for edge in edges if {edge.source, edge.target} <= shown))


def _node(entity: Entity, no_producer: bool = False) -> Node:
    return Node(id=str(entity.ref), kind=entity.kind, label=entity.name, file=str(entity.source_file),
                definition=_definition(entity), no_producer=no_producer)


def _definition(entity: Entity) -> str:
    """The entity's file as written, every secret masked (secrets_masking.py: a URL's password, a secret
    property's value); in a datasource's, each `passwordText` line and the lines that continue its value (indented
    deeper: a block scalar, a value spread over lines) hidden, since the page is copied around. When a part of a
    secret the definition holds would still show, the whole file is left out."""
    text = entity.source_file.read_text(encoding="utf-8")
    if isinstance(entity, Datasource) and entity.holds_password_text:
        text = _hide_password_text(text)
    shown = masked(text)
    secrets = _secrets(entity)
    if any(part in shown for _, secret in secrets for part in secret.split()):
        names = list(dict.fromkeys(name for name, _ in secrets))
        return (f"# The definition of {entity.kind.label.lower()} '{entity.name}' is not shown: it holds a "
                f"{'password' if PASSWORD_KEY in names else 'secret'} ({', '.join(names)}). "
                f"See {entity.source_file}.\n")
    return shown


def _hide_password_text(text: str) -> str:
    """Each `passwordText` line as `# (passwordText hidden)`, and the lines that continue its value."""
    lines, hiding = [], None
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip())
        if hiding is not None and (not line.strip() or indent > hiding):
            continue
        hiding = None
        if PASSWORD_KEY in line:
            lines.append(line[:indent] + _HIDDEN_PASSWORD)
            hiding = indent
        else:
            lines.append(line)
    return "\n".join(lines)


def _secrets(entity: Entity) -> list[tuple[str, str]]:
    """The secrets the definition writes, each with where: a datasource's password-texts, each property (the
    entity's, a datasource interface's) that holds one, and each an interface's endpoint writes (a URL's password,
    its `password=` parameter)."""
    found = []
    properties = [entity.properties]
    endpoints: list[str] = []
    if isinstance(entity, Datasource):
        credentials = [entity.credential, *(interface.credential for interface in entity.interfaces.values())]
        found += [(PASSWORD_KEY, credential.password_text) for credential in credentials
                  if credential is not None and credential.password_text is not None]
        properties += [interface.properties for interface in entity.interfaces.values()]
        endpoints += [interface.endpoint for interface in entity.interfaces.values()]
    if isinstance(entity, Cluster):
        endpoints += [interface.endpoint for interface in entity.interfaces.values()]
    for endpoint in endpoints:
        found += secret_settings(endpoint)
    for each in properties:
        found += [(name, str(value)) for name, value in each.items() if inline_secret(name, str(value))]
    return found


def _feed_id(name: str) -> str:
    return str(EntityRef(Kind.FEED, name))


def _feeds(uses: Iterable[FeedUse]) -> list[str]:
    """One edge per feed, however many inputs (or outputs) of the process name it."""
    return list(dict.fromkeys(use.feed for use in uses))


def _transfer_edges(feeds: Iterable[Feed], cluster: str | None) -> list[Edge]:
    """Datasource -> feed for an import, feed -> datasource for an export, on `cluster` (else on any of the
    feed's clusters), once per feed, datasource and direction, in repo order."""
    found: dict[tuple[str, str, EdgeKind], Edge] = {}
    for feed in feeds:
        here = _feed_id(feed.name)
        for on in _clusters_of(feed, cluster):
            if on.import_ is not None:
                source = str(EntityRef(Kind.DATASOURCE, on.import_.datasource))
                found.setdefault((source, here, EdgeKind.IMPORT), Edge(source, here, EdgeKind.IMPORT))
            if on.export is not None:
                target = str(EntityRef(Kind.DATASOURCE, on.export.datasource))
                found.setdefault((here, target, EdgeKind.EXPORT), Edge(here, target, EdgeKind.EXPORT))
    return list(found.values())


def _clusters_of(feed: Feed, cluster: str | None) -> list[FeedCluster]:
    if cluster is None:
        return list(feed.clusters)
    on = feed.cluster(cluster)
    return [] if on is None else [on]


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
