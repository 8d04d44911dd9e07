"""A table feed's partition on a cluster: its catalog URI on that cluster (the cluster's own `table` replaces the
feed's) formatted at an instance time gives the database, the table and the partition spec."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from toolkit.core.el.templates import CatalogTemplate
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.object_stores import require_no_object_store_uri
from toolkit.core.instances.feed_locations import under_root
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.storage.catalog_records import PartitionAddress
from toolkit.core.storage.partition_names import partition_name
from toolkit.errors import UsageError
from toolkit.secrets_masking import masked
from toolkit.shown_text import printable

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True)
class FeedPartition:
    """The partition of `feed` on `cluster` for one instance time."""

    feed: str
    cluster: str
    database: str
    table: str
    spec: dict[str, str] = field(hash=False)
    uri: CatalogTemplate

    @property
    def qualified_table(self) -> str:
        return f"{self.database}.{self.table}"

    @property
    def address(self) -> PartitionAddress:
        return PartitionAddress(self.database, self.table, self.spec)

    @property
    def name(self) -> str:
        return partition_name(self.spec)


def feed_table(feed: Feed, cluster: Cluster) -> CatalogTemplate:
    """The catalog URI of `feed` on `cluster`; UsageError when the feed is not there or has no table there."""
    require_on_cluster(feed, cluster.name)
    uri = feed.table_on(cluster.name)
    if uri is None:
        raise UsageError(f"The feed '{feed.name}' has no table on cluster '{cluster.name}' (it is stored as files "
                         "there): Hive export and import need a table feed, `table: {uri: catalog:db:table#...}`.")
    return CatalogTemplate(uri)


def feed_partition(feed: Feed, cluster: Cluster, t: datetime) -> FeedPartition:
    """The table partition of `feed` on `cluster` at `t`; UsageError when the feed has no table there."""
    template = feed_table(feed, cluster)
    spec = template.format(t, resolve_zone(feed.timezone))
    return FeedPartition(feed.name, cluster.name, template.database, template.table, spec, template)


def directory_uri(text: str, cluster: Cluster, option: str) -> str:
    """A directory argument as a full URI: a URI as given, an absolute path under the cluster's file system root
    (as feed paths are). A URI that writes a password (`hdfs://etl:secret@nn/x`) is refused: it would reach the
    status line, a notice's rerun command and the lineage, where nothing masks a directory. So is a control
    character (a line break, an escape): the directory reaches the run's record and the command that reruns it."""
    if (escaped := printable(text)) != text:
        raise UsageError(f"{option} {escaped} holds a control character (a line break, a terminal escape): give the "
                         "directory's name without it.")
    if (shown := masked(text)) != text:
        raise UsageError(f"{option} {shown} writes a password into the URI: give it without one; the cluster's "
                         "Hadoop configuration supplies credentials (core-site.xml, a credential provider).")
    if _SCHEME.match(text):
        require_no_object_store_uri(text, option)
        return text
    if not text.startswith("/"):
        raise UsageError(f"{option} {text!r} is neither a URI (hdfs://nn:8020/x, file:///x) nor an absolute path: "
                         "give one or the other.")
    if cluster.write_endpoint is None:
        raise UsageError(f"{option} {text} is a path, but the cluster '{cluster.name}' has no write interface to "
                         "resolve it under: give a full URI, or add interfaces.write.endpoint.")
    return under_root(cluster.write_endpoint, text)
