"""The shapes Falcon shares between entity kinds, read into the toolkit's YAML data.

Values stay the text Falcon has (EL expressions, frequencies, times, paths), except where the toolkit's
schema wants another type: integers (`parallel`, `attempts`, `version`) and booleans (`optional`,
`onTimeout`). Those are converted only when the text is a valid XML integer or boolean; otherwise the text
is kept, and the schema check of the written file reports it with its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any

from toolkit.authoring.convert.tracking import Node

_INTEGER = re.compile(r"[+-]?[0-9]+")
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


def fields(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """The pairs whose value is not None, in the order given (the schema's order)."""
    return {key: value for key, value in pairs if value is not None}


def attributes(node: Node | None, *names: str) -> dict[str, str] | None:
    """The element's attributes `names`, which keep their names in YAML; None without the element."""
    if node is None:
        return None
    return fields(*((name, node.attr(name)) for name in names))


def present(value: str | None) -> str | None:
    """An attribute Falcon's tools write empty (`lib=""`, `<schema location="">`) for "none", as absent."""
    return value if value else None


def text(node: Node | None) -> str | None:
    return None if node is None else node.text()


def comma_list(node: Node | None) -> list[str] | None:
    """Falcon's comma-separated `groups` and `pipelines` as a list."""
    if node is None:
        return None
    return [item.strip() for item in node.text().split(",") if item.strip()]


def tags(node: Node | None) -> dict[str, str] | None:
    """Falcon's `key=value, key2=value2` tags as a mapping; malformed and repeated tags are reported."""
    return None if node is None else parse_tags(node.text(), node.report)


def parse_tags(text: str, report: Callable[[str], None]) -> dict[str, str]:
    """`key=value, key2=value2` as a mapping; a malformed or repeated tag is reported through `report`."""
    result: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, separator, value = (part.strip() for part in item.partition("="))
        if not separator or not key:
            report(f"the tag {item!r} is not key=value and was not converted: write it as key=value.")
        elif key in result:
            report(f"the tag {key!r} is given twice; only its first value was converted: keep one.")
        else:
            result[key] = value
    return result


def properties(node: Node | None) -> dict[str, str] | None:
    """`<property name=... value=.../>` elements as a mapping of names to values."""
    return keyed(node, "property", "name", lambda item: item.attr("value"))


def keyed(
    node: Node | None,
    tag: str,
    key_attribute: str,
    value: Callable[[Node], Any],
    allowed: Collection[str] | None = None,
) -> dict[str, Any] | None:
    """The child elements `tag` as a mapping keyed by their attribute `key_attribute` (Falcon's lists of
    interfaces, locations and properties). An element without the key or a value, with a key not `allowed`
    or repeating a key, is reported and not converted.
    """
    if node is None:
        return None
    result: dict[str, Any] = {}
    for item in node.children(tag):
        key = item.attr(key_attribute)
        if key is None:
            item.reject(f"<{tag}> has no {key_attribute} attribute and was not converted: add one.")
        elif allowed is not None and key not in allowed:
            item.reject(
                f"{key_attribute} {key!r} is not one the toolkit knows ({', '.join(allowed)}), so it was not "
                "converted: redo by hand what it did, or drop it."
            )
        elif key in result:
            item.reject(f"{key_attribute} {key!r} is given twice; only the first was converted: keep one.")
        else:
            converted = value(item)
            if converted is None:
                item.reject(f"<{tag}> {key!r} has no value and was not converted: add its value.")
            else:
                result[key] = converted
    return result


def location_path(location: Node) -> str | None:
    """The `path` of a `<location>`: the value of cluster and feed locations."""
    return location.attr("path")


def integer(value: str | None) -> int | str | None:
    """An XML integer as an int; other text unchanged (the schema check reports it)."""
    if value is None:
        return None
    stripped = value.strip()
    return int(stripped) if _INTEGER.fullmatch(stripped) else value


def boolean(value: str | None) -> bool | str | None:
    """An XML boolean (`true`, `false`, `1`, `0`) as a bool; other text unchanged (the schema check reports it)."""
    if value is None:
        return None
    return _BOOLEANS.get(value.strip(), value)
