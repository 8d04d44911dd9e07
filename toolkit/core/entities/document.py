"""A parsed YAML file: plain data plus the line and column of every key and value.

Paths address values the way the YAML is written: `("inputs", 0, "start")` is the `start` of the first
input. Errors about a value point at its own line, never at the file's first line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PathKey = str | int
FieldPath = tuple[PathKey, ...]


@dataclass(frozen=True, order=True)
class SourceSpan:
    """A 1-based line and column in a file."""

    file: Path
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, eq=False)
class Document:
    """One YAML file's top-level mapping, with positions of its values and of its mapping keys."""

    file: Path
    data: Mapping[str, Any]
    value_positions: Mapping[FieldPath, tuple[int, int]] = field(repr=False)
    key_positions: Mapping[FieldPath, tuple[int, int]] = field(repr=False)

    def span(self, path: FieldPath = ()) -> SourceSpan:
        """Where the value at `path` starts; a missing path falls back to its nearest existing parent."""
        for end in range(len(path), -1, -1):
            position = self.value_positions.get(path[:end])
            if position is not None:
                return SourceSpan(self.file, *position)
        return SourceSpan(self.file, 1, 1)

    def key_span(self, path: FieldPath) -> SourceSpan:
        """Where the key of the mapping entry at `path` is written (for unknown or duplicate keys)."""
        position = self.key_positions.get(path)
        return SourceSpan(self.file, *position) if position is not None else self.span(path)


def format_path(path: FieldPath) -> str:
    """`("inputs", 0, "start")` -> `inputs[0].start`; keys that are not plain words are quoted."""
    text = ""
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif step.replace("-", "").replace("_", "").isalnum():
            text += f".{step}" if text else step
        else:
            text += f"[{step!r}]"
    return text
