"""A Falcon cluster (`uri:falcon:cluster:0.1`) as the toolkit's cluster data.

Interfaces become a mapping by type and locations a mapping by name. Falcon's `spark` interface has no
counterpart: the toolkit runs Spark jobs on the cluster's `execute` interface, so it is reported.
"""

from __future__ import annotations

from typing import Any

from toolkit.convert.tracking import Node
from toolkit.convert.values import ENTITY_VERSION_HINT, attributes, fields, keyed, location_path, properties, tags

INTERFACE_TYPES = ("readonly", "write", "execute", "workflow", "messaging", "registry")
LOCATION_NAMES = ("staging", "temp", "working")

_SPARK_INTERFACE_HINT = (
    "the spark interface has no counterpart in a toolkit cluster and was not converted: Spark jobs run on the "
    "execute interface, so make the Spark master (spark://host:7077 or yarn) its endpoint if jobs should run there."
)


def convert_cluster(root: Node) -> dict[str, Any]:
    """The cluster's data in the schema's key order; what has no place is reported on the root's tracker."""
    root.unsupported_attribute("version", ENTITY_VERSION_HINT)
    return fields(
        ("kind", "cluster"),
        ("name", root.attr("name")),
        ("description", root.attr("description")),
        ("colo", root.attr("colo")),
        ("tags", tags(root.child("tags"))),
        (
            "interfaces",
            keyed(
                root.child("interfaces"),
                "interface",
                "type",
                lambda interface: attributes(interface, "endpoint", "version"),
                INTERFACE_TYPES,
                {"spark": _SPARK_INTERFACE_HINT},
            ),
        ),
        ("locations", keyed(root.child("locations"), "location", "name", location_path, LOCATION_NAMES)),
        ("ACL", attributes(root.child("ACL"), "owner", "group", "permission")),
        ("properties", properties(root.child("properties"))),
    )
