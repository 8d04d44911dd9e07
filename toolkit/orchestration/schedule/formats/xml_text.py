"""A small XML writer for the generated Oozie files: elements in the order given, two-space indents, each element's
own `xmlns` where the schema changes (Oozie's idiom: `<shell xmlns="uri:oozie:shell-action:0.3">` inside a
workflow), and a comment before the root. ElementTree would prefix a nested default namespace (`ns0:`), which is
valid but not what an Oozie user reads; this writes text, so the output is byte for byte deterministic."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

_HYPHEN_BEFORE_HYPHEN = re.compile("-(?=-)")


@dataclass(frozen=True)
class Element:
    """`text` or `children`, not both; `attributes` keep their order."""

    tag: str
    attributes: tuple[tuple[str, str], ...] = ()
    children: Sequence[Element] = field(default_factory=tuple)
    text: str | None = None


def element(tag: str, *children: Element, text: str | None = None, **attributes: str) -> Element:
    """`element("case", text="${...}", to="end")`; attribute names use `_` for `-` (`retry_max`)."""
    return Element(tag, tuple((name.replace("_", "-"), value) for name, value in attributes.items()), children, text)


def document(root: Element, comment: str) -> str:
    """The XML declaration, `comment` as an XML comment, then `root`."""
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', _comment(comment), *_lines(root, 0)]) + "\n"


def _comment(text: str) -> str:
    """`<!-- text -->`, for any `text` of XML's characters: a comment ends at its first `--`, so every hyphen
    followed by another gets a space after it (`---` is `- - -`; replacing `--` once would leave `- --`), and the
    space before `-->` keeps a final hyphen from touching it."""
    return f"<!-- {_HYPHEN_BEFORE_HYPHEN.sub('- ', text)} -->"


def _lines(node: Element, depth: int) -> list[str]:
    pad = "  " * depth
    attributes = "".join(f" {name}={quoteattr(value)}" for name, value in node.attributes)
    if node.text is not None:
        return [f"{pad}<{node.tag}{attributes}>{escape(node.text)}</{node.tag}>"]
    if not node.children:
        return [f"{pad}<{node.tag}{attributes}/>"]
    inner = [line for child in node.children for line in _lines(child, depth + 1)]
    return [f"{pad}<{node.tag}{attributes}>", *inner, f"{pad}</{node.tag}>"]
