"""A Falcon cluster (`uri:falcon:cluster:0.1`) as the toolkit's cluster data.

Interfaces (the `spark` one too: the master of `spark` engine processes) become a mapping by type and
locations a mapping by name.
"""

from __future__ import annotations

from typing import Any

from toolkit.authoring.convert.tracking import Node
from toolkit.authoring.convert.values import attributes, fields, integer, keyed, location_path, properties, tags

INTERFACE_TYPES = ("readonly", "write", "execute", "workflow", "messaging", "registry", "spark")
LOCATION_NAMES = ("staging", "temp", "working")


def convert_cluster(root: Node) -> dict[str, Any]:
    """The cluster's data in the schema's key order; what has no place is reported on the root's tracker."""
    return fields(
        ("kind", "cluster"),
        ("name", root.attr("name")),
        ("description", root.attr("description")),
        ("version", integer(root.attr("version"))),
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
            ),
        ),
        ("locations", keyed(root.child("locations"), "location", "name", location_path, LOCATION_NAMES)),
        ("ACL", attributes(root.child("ACL"), "owner", "group", "permission")),
        ("properties", properties(root.child("properties"))),
    )
