"""Where the instances of a feed live on one cluster: paths under the cluster's file system root, or
partitions of a catalog table. Cluster overrides of the feed's locations and table are applied."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from zoneinfo import ZoneInfo

from toolkit.core.el.templates import CatalogTemplate, PathTemplate
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.grids import require_on_cluster
from toolkit.core.storage.filesystem import normalize_uri
from toolkit.errors import UsageError
from toolkit.uris import has_dot_segment, join_under


def under_root(root: str, path: str) -> str:
    """`path` (absolute, from a feed or location) resolved under a cluster's write endpoint, in one spelling;
    a `.` or `..` segment in either is refused (exit 2): it would climb out of where the path says it is."""
    if has_dot_segment(root):
        raise UsageError(f"The cluster root {root!r} (interfaces.write.endpoint) has a '.' or '..' segment: give it "
                         "without them.")
    if has_dot_segment(path):
        raise UsageError(f"The path {path!r} has a '.' or '..' segment: give it without them (under {root}).")
    return join_under(root, path)


@dataclass(frozen=True)
class FeedLocations:
    """A feed on a cluster: its path templates by location type (data, stats, meta, tmp), or its table."""

    feed: str
    cluster: str
    root: str
    zone: ZoneInfo
    paths: Mapping[str, PathTemplate]
    table: CatalogTemplate | None

    @property
    def is_table(self) -> bool:
        return self.table is not None

    def event_location(self, t: datetime) -> str:
        """Where the instance at t is, as dataset events name it: its data path, or `db.table/k1=v1/k2=v2`."""
        if self.table is not None:
            values = "/".join(f"{key}={value}" for key, value in self.table.format(t, self.zone).items())
            return f"{self.table.database}.{self.table.table}/{values}"
        return normalize_uri(under_root(self.root, self.paths["data"].format(t, self.zone)))

    def describe(self, t: datetime, every_location: bool = False) -> dict[str, object]:
        """The instance at t as JSON-ready data: its data path (and every location type when asked), or
        its table partition."""
        described: dict[str, object] = {"time": format_timestamp(t)}
        if self.table is not None:
            described.update(database=self.table.database, table=self.table.table,
                             partition=self.table.format(t, self.zone),
                             partition_spec=self.table.format_spec(t, self.zone))
            return described
        locations = {kind: under_root(self.root, template.format(t, self.zone))
                     for kind, template in self.paths.items()}
        described["path"] = locations.get("data")
        if every_location:
            described["locations"] = locations
        return described


def feed_locations(feed: Feed, cluster: Cluster) -> FeedLocations:
    """The storage view of `feed` on `cluster`; a feed that is not on the cluster is an error."""
    require_on_cluster(feed, cluster.name)
    if cluster.write_endpoint is None:
        raise UsageError(
            f"The cluster '{cluster.name}' has no write interface: add interfaces.write.endpoint, the root of its "
            "file system (hdfs://namenode:8020 or file:///var/data/primary)."
        )
    table = feed.table_on(cluster.name)
    paths = {} if table is not None else {
        kind: PathTemplate(path) for kind, path in feed.locations_on(cluster.name).items()
    }
    return FeedLocations(
        feed=feed.name,
        cluster=cluster.name,
        root=cluster.write_endpoint,
        zone=resolve_zone(feed.timezone),
        paths=MappingProxyType(paths),
        table=CatalogTemplate(table) if table is not None else None,
    )


def require_safe_template(kind: str, feed: str, template: PathTemplate, action: str) -> None:
    """Refuse a path template an action cannot write or delete under safely, whatever the linter said (exit 2):
    `.` or `..` in it, date variables without ${YEAR}, or no fixed folder before its first variable."""
    if has_dot_segment(template.text):
        raise UsageError(f"The {kind} path of feed '{feed}' contains '..' or '.' as a segment: {template.text!r}; "
                         "give a path without them.")
    if not template.can_date_instances:
        raise UsageError(
            f"The {kind} path of feed '{feed}' has date variables but no ${{YEAR}}: {template.text!r}; {action} "
            "cannot date its instances, add ${YEAR}."
        )
    if template.static_prefix in ("", "/"):
        raise UsageError(
            f"The {kind} path of feed '{feed}' starts with a variable: {template.text!r}; {action} refuses to work "
            "at the root of the file system, put the instances under a fixed folder such as /data/<feed>/."
        )
