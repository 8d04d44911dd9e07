"""A Falcon feed (`uri:falcon:feed:0.1`) as the toolkit's feed data.

Partitions and clusters become lists, groups a list of names, tags and properties mappings, locations a
mapping by type, `<table uri=...>` a `table: {uri}`. A cluster's `import` and `export` (from and to a
datasource) keep Falcon's names; their `<argument name="--split-by" value="id"/>` elements become the mapping
`arguments` with Sqoop's option names without their leading `--` (`split-by: id`), and the repeated `<field>` of
`includes`/`excludes` a list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkit.authoring.convert.tracking import Node
from toolkit.authoring.convert.values import (
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
        ("import", _policy(cluster.child("import"), "source", _extract)),
        ("export", _policy(cluster.child("export"), "target", _load)),
    )


def _policy(policy: Node | None, side: str, method: Callable[[Node], tuple[str, Any]]) -> dict[str, Any] | None:
    """An `<import>` (its `<source>`) or `<export>` (its `<target>`), with its arguments."""
    if policy is None:
        return None
    table = policy.child(side)
    return fields((side, None if table is None else _table_of(table, method)),
                  ("arguments", _arguments(policy.child("arguments"))))


def _table_of(table: Node, method: Callable[[Node], tuple[str, Any]]) -> dict[str, Any]:
    fields_node = table.child("fields")
    return fields(
        ("name", table.attr("name")),
        ("tableName", table.attr("tableName")),
        ("version", integer(table.attr("version"))),
        method(table),
        ("fields", None if fields_node is None else _fields(fields_node)),
    )


def _extract(source: Node) -> tuple[str, Any]:
    extract = source.child("extract")
    return "extract", None if extract is None else fields(
        ("type", extract.attr("type")),
        ("mergepolicy", text(extract.child("mergepolicy"))),
        ("deltacolumn", text(extract.child("deltacolumn"))),
    )


def _load(target: Node) -> tuple[str, Any]:
    return "load", attributes(target.child("load"), "type")


def _fields(node: Node) -> dict[str, Any]:
    return fields(*((choice, [field.text() for field in chosen.children("field")])
                    for choice in ("includes", "excludes") if (chosen := node.child(choice)) is not None))


def _arguments(arguments: Node | None) -> dict[str, str] | None:
    """Falcon's `<argument name="--check-column" value="id"/>` as `check-column: id`: Sqoop's option names
    without their leading `--`, as the toolkit's `arguments` keep them."""
    if arguments is None:
        return None
    result: dict[str, str] = {}
    for name, value in (keyed(arguments, "argument", "name", lambda item: item.attr("value")) or {}).items():
        bare = name.removeprefix("--")
        if bare in result:
            arguments.report(f"the argument {bare!r} is given twice (with and without --); only the first was "
                             "converted: keep one.")
        else:
            result[bare] = value
    return result


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
