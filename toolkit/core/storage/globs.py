"""Hadoop's glob patterns (`*`, `?`, `[ab]`, `{x,y}`) matched by listing one path component at a time, for file
systems without a glob call of their own (the local one, WebHDFS). Unlike Python's glob (before 3.11's
`include_hidden`), `*` and `?` also match a leading dot, as Hadoop's globs do."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable

MAGIC = re.compile(r"[*?[]")


def expand_braces(pattern: str) -> list[str]:
    """Hadoop globs know `{a,b}`; fnmatch does not: expand them first (nested too)."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        depth += {"{": 1, "}": -1}.get(pattern[end], 0)
        if depth == 0:
            break
    else:
        return [pattern]
    inner, options, level, last = pattern[start + 1:end], [], 0, 0
    for index, char in enumerate(inner):
        level += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and level == 0:
            options.append(inner[last:index])
            last = index + 1
    options.append(inner[last:])
    return [expanded for option in options
            for expanded in expand_braces(pattern[:start] + option + pattern[end + 1:])]


def glob_paths(pattern: str, exists: Callable[[str], bool], names: Callable[[str], list[str]]) -> list[str]:
    """The absolute paths matching a brace-free absolute `pattern`, component by component: `exists(path)` for a
    literal component, `names(folder)` (the names in a folder, [] when it is none) for one with a wildcard."""
    found = ["/"]
    for part in (part for part in pattern.split("/") if part):
        if MAGIC.search(part) is None:
            found = [path for path in (_join(folder, part) for folder in found) if exists(path)]
        else:
            match = re.compile(fnmatch.translate(part)).match
            found = [_join(folder, name) for folder in found for name in names(folder) if match(name)]
    return found


def _join(folder: str, name: str) -> str:
    return folder.rstrip("/") + "/" + name
