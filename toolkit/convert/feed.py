"""A Falcon feed (`uri:falcon:feed:0.1`) as the toolkit's feed data.

Partitions and clusters become lists, groups a list of names, tags and properties mappings, locations a
mapping by type, `<table uri=...>` a `table: {uri}`. A cluster's datasource `import` and `export` (Sqoop
from and to databases) have no counterpart in the toolkit, so they are reported; the rest of the feed
is still converted.
"""

from __future__ import annotations

from typing import Any

from toolkit.convert.tracking import Node
from toolkit.convert.values import (
    attributes,
    comma_list,
    fields,
    integer,
    keyed,
    location_path,
    present,
    properties,
    tags,
    text,
)

LOCATION_TYPES = ("data", "stats", "meta", "tmp")

_IMPORT_HINT = (
    "Falcon's datasource import (Sqoop from a database) is not supported by the toolkit and was not converted: "
    "load the data into the feed's path with another tool; the rest of the feed was converted."
)
_EXPORT_HINT = (
    "Falcon's datasource export (Sqoop to a database) is not supported by the toolkit and was not converted: "
    "export the feed's instances with another tool; the rest of the feed was converted."
)


def convert_feed(root: Node) -> dict[str, Any]:
    """The feed's data in the schema's key order; what has no place is reported on the root's tracker."""
    clusters = root.child("clusters")
    return fields(
        ("kind", "feed"),
        ("name", root.attr("name")),
        ("description", root.attr("description")),
        ("version", integer(root.attr("version"))),
        ("tags", tags(root.child("tags"))),
        ("partitions", _partitions(root.child("partitions"))),
        ("groups", comma_list(root.child("groups"))),
        ("availabilityFlag", text(root.child("availabilityFlag"))),
        ("frequency", text(root.child("frequency"))),
        ("sla", attributes(root.child("sla"), "slaLow", "slaHigh")),
        ("timezone", text(root.child("timezone"))),
        ("late-arrival", attributes(root.child("late-arrival"), "cut-off")),
        ("clusters", None if clusters is None else [_cluster(cluster) for cluster in clusters.children("cluster")]),
        ("locations", _locations(root.child("locations"))),
        ("table", attributes(root.child("table"), "uri")),
        ("notification", attributes(root.child("notification"), "type", "level", "to")),
        ("ACL", attributes(root.child("ACL"), "owner", "group", "permission")),
        ("schema", _schema(root.child("schema"))),
        ("properties", properties(root.child("properties"))),
        ("lifecycle", _lifecycle(root.child("lifecycle"))),
    )


def _schema(schema: Node | None) -> dict[str, Any] | None:
    """`location=""` (Falcon's Hive examples) means the schema is described nowhere: no location."""
    if schema is None:
        return None
    return fields(("location", present(schema.attr("location"))), ("provider", schema.attr("provider")))


def _partitions(partitions: Node | None) -> list[str] | None:
    if partitions is None:
        return None
    names = []
    for partition in partitions.children("partition"):
        name = partition.attr("name")
        if name is None:
            partition.reject("<partition> has no name attribute and was not converted: add one.")
        else:
            names.append(name)
    return names


def _cluster(cluster: Node) -> dict[str, Any]:
    cluster.unsupported("import", _IMPORT_HINT)
    cluster.unsupported("export", _EXPORT_HINT)
    return fields(
        ("name", cluster.attr("name")),
        ("type", cluster.attr("type")),
        ("partition", cluster.attr("partition")),
        ("delay", cluster.attr("delay")),
        ("version", integer(cluster.attr("version"))),
        ("validity", attributes(cluster.child("validity"), "start", "end")),
        ("retention", attributes(cluster.child("retention"), "limit", "action", "type")),
        ("sla", attributes(cluster.child("sla"), "slaLow", "slaHigh")),
        ("locations", _locations(cluster.child("locations"))),
        ("table", attributes(cluster.child("table"), "uri")),
        ("lifecycle", _lifecycle(cluster.child("lifecycle"))),
    )


def _locations(locations: Node | None) -> dict[str, str] | None:
    return keyed(locations, "location", "type", location_path, LOCATION_TYPES)


def _lifecycle(lifecycle: Node | None) -> dict[str, Any] | None:
    if lifecycle is None:
        return None
    return fields(("retention-stage", _retention_stage(lifecycle.child("retention-stage"))))


def _retention_stage(stage: Node | None) -> dict[str, Any] | None:
    if stage is None:
        return None
    return fields(
        ("policy", text(stage.child("policy"))),
        ("frequency", text(stage.child("frequency"))),
        ("queue", text(stage.child("queue"))),
        ("priority", text(stage.child("priority"))),
        ("properties", properties(stage.child("properties"))),
    )
