"""What each entity file declares (`kind:` and `name:` at the top level), read from its plain text without YAML
parsing or schema checks, so that a command about one entity can find the few files it needs in a repo of
thousands (repo.py, `ConfigRepo.load_only`).

Only the simple spelling is trusted: a line `kind: process` / `name: p1` at column 0, the value plain or quoted,
a comment after it allowed. A file whose declaration this does not read with certainty (flow style, an anchor,
a multi-line value, the key twice) is `None`: the caller parses it for real. The pre-scan never decides that a
file is valid; the files it selects are loaded and checked as `ConfigRepo.load` checks them.
"""

from __future__ import annotations

import re
from pathlib import Path

from toolkit.core.entities.entity_file import FileTooLarge, read_entity_file
from toolkit.core.entities.kinds import EntityRef, Kind

_VALUE = re.compile(r"[ \t]*(?:\"([^\"\\]*)\"|'([^']*)'|([^\s'\"#&*!|>{}\[\],][^\s#]*))[ \t]*(?:#.*)?")
_KEYS = ("kind:", "name:")
_KINDS = {kind.value: kind for kind in Kind}


def declared(file: Path) -> EntityRef | None:
    """The kind and name `file` declares, when its text says so plainly; None when it must be parsed to tell
    (or cannot be read: the real load reports why)."""
    try:
        text = read_entity_file(file).decode("utf-8")
    except (OSError, FileTooLarge, UnicodeDecodeError):
        return None
    return declared_in(text)


def declared_in(text: str) -> EntityRef | None:
    """`declared` for a file's text."""
    lines = [line for line in text.splitlines() if line.startswith(_KEYS)]
    if len(lines) != 2 or lines[0][:5] == lines[1][:5]:  # a key missing or given twice: the real load tells
        return None
    values = {}
    for line in lines:
        match = _VALUE.fullmatch(line, 5)
        if match is None:
            return None
        values[line[:4]] = next(value for value in match.groups() if value is not None)
    kind, name = _KINDS.get(values["kind"]), values["name"]
    if kind is None or not name:
        return None
    return EntityRef(kind, name)
