"""Entity data as readable YAML, written like the template's files.

The first line points editors at the schema; mappings and lists of mappings are in block style with the keys
in the order given (the schema's); short lists of plain words are in flow style (`groups: [web]`). A string
is quoted only when a YAML 1.1 or 1.2 reader would read something else from it plain: `on`, `0755`, `3.4`,
`1e3`, `key: value`, `*alias`, `# text`, surrounding spaces, control characters. `${YEAR}`, paths, times and
EL expressions stay plain. PyYAML's emitter is not used: it indents lists differently and quotes with `'`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from toolkit.core.entities.yaml_loader import reads_as_text

_INDENT = 2
_FLOW_WIDTH = 80
_STRING_TAG = "tag:yaml.org,2002:str"
_YAML11 = Resolver()  # PyYAML's YAML 1.1 implicit types: bools (yes/on ...), ints, floats, timestamps, null
_SHORT_BOOLEANS = frozenset({"y", "Y", "n", "N"})  # booleans to some YAML 1.1 readers
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def render_entity(kind: str, data: Mapping[str, Any]) -> str:
    """The YAML file of an entity of `kind` whose data is `data` (strings, ints, bools, lists, mappings)."""
    lines = [f"# yaml-language-server: $schema=../.schemas/{kind}.json"]
    _mapping(data, 0, lines)
    return "\n".join(lines) + "\n"


def scalar(value: str | int | bool) -> str:
    """A scalar as YAML: plain when that reads back as the same value, else double-quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _double_quoted(value) if _needs_quotes(value) else value


def _mapping(data: Mapping[str, Any], indent: int, lines: list[str]) -> None:
    for key, value in data.items():
        _entry(f"{' ' * indent}{scalar(key)}:", value, indent, lines)


def _entry(head: str, value: Any, indent: int, lines: list[str]) -> None:
    """`head` (`key:`, `- key:` or `-`) written at column `indent`; the value follows it or goes below it."""
    if isinstance(value, Mapping) and value:
        lines.append(head)
        _mapping(value, indent + _INDENT, lines)
    elif isinstance(value, list) and value and not _is_flow_list(value):
        lines.append(head)
        _sequence(value, indent + _INDENT, lines)
    elif isinstance(value, Mapping):
        lines.append(f"{head} {{}}")
    elif isinstance(value, list):
        lines.append(f"{head} [{', '.join(value)}]")
    else:
        lines.append(f"{head} {scalar(value)}")


def _sequence(items: list[Any], indent: int, lines: list[str]) -> None:
    pad = " " * indent
    for item in items:
        if isinstance(item, Mapping) and item:
            for index, (key, value) in enumerate(item.items()):
                lead = "- " if index == 0 else "  "
                _entry(f"{pad}{lead}{scalar(key)}:", value, indent + _INDENT, lines)
        else:
            _entry(f"{pad}-", item, indent, lines)


def _is_flow_list(items: list[Any]) -> bool:
    """Like the template's `groups: [web]`: short, and only words that need no quotes."""
    return (
        all(isinstance(item, str) and _FLOW_WORD.fullmatch(item) and not _needs_quotes(item) for item in items)
        and sum(len(item) + 2 for item in items) <= _FLOW_WIDTH
    )


def _needs_quotes(text: str) -> bool:
    return (
        not text
        or text != text.strip()
        or not text.isprintable()
        or text[0] in _INDICATORS
        or text.startswith(("---", "..."))
        or ": " in text
        or " #" in text
        or text.endswith(":")
        or text in _SHORT_BOOLEANS
        or _YAML11.resolve(ScalarNode, text, (True, False)) != _STRING_TAG
        or not reads_as_text(text)
    )


def _double_quoted(text: str) -> str:
    """A YAML double-quoted scalar: printable characters as they are, the others escaped."""
    return '"' + "".join(_escape(char) for char in text) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
