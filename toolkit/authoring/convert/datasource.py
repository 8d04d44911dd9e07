"""A Falcon datasource (`uri:falcon:datasource:0.1`) as the toolkit's datasource data.

Interfaces become a mapping by type (`readonly`, `write`) beside the default `credential`; a credential keeps
Falcon's `type`, `userName` and its one password element (`passwordFile`, `passwordText`, or `passwordAlias`
with `alias` and `providerPath`); a driver's repeated `<jar>` becomes the list `jar`.
"""

from __future__ import annotations

from typing import Any

from toolkit.authoring.convert.tracking import Node
from toolkit.authoring.convert.values import attributes, fields, integer, keyed, properties, tags, text

INTERFACE_TYPES = ("readonly", "write")


def convert_datasource(root: Node) -> dict[str, Any]:
    """The datasource's data in the schema's key order; what has no place is reported on the root's tracker."""
    interfaces = root.child("interfaces")
    return fields(
        ("kind", "datasource"),
        ("name", root.attr("name")),
        ("description", root.attr("description")),
        ("version", integer(root.attr("version"))),
        ("colo", root.attr("colo")),
        ("type", root.attr("type")),
        ("tags", tags(root.child("tags"))),
        ("interfaces", None if interfaces is None else _interfaces(interfaces)),
        ("driver", _driver(root.child("driver"))),
        ("ACL", attributes(root.child("ACL"), "owner", "group", "permission")),
        ("properties", properties(root.child("properties"))),
    )


def _interfaces(interfaces: Node) -> dict[str, Any]:
    by_type = keyed(interfaces, "interface", "type", _interface, INTERFACE_TYPES) or {}
    return fields(*by_type.items(), ("credential", _credential(interfaces.child("credential"))))


def _interface(interface: Node) -> dict[str, Any]:
    return fields(
        ("endpoint", interface.attr("endpoint")),
        ("credential", _credential(interface.child("credential"))),
        ("driver", _driver(interface.child("driver"))),
        ("properties", properties(interface.child("properties"))),
    )


def _credential(credential: Node | None) -> dict[str, Any] | None:
    if credential is None:
        return None
    alias = credential.child("passwordAlias")
    return fields(
        ("type", credential.attr("type")),
        ("userName", text(credential.child("userName"))),
        ("passwordFile", text(credential.child("passwordFile"))),
        ("passwordText", text(credential.child("passwordText"))),
        ("passwordAlias", None if alias is None else fields(("alias", text(alias.child("alias"))),
                                                             ("providerPath", text(alias.child("providerPath"))))),
    )


def _driver(driver: Node | None) -> dict[str, Any] | None:
    if driver is None:
        return None
    return fields(("clazz", text(driver.child("clazz"))), ("jar", [jar.text() for jar in driver.children("jar")]))
