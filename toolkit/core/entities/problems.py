"""Problems found in entity files: one record per finding, located at a file, line and column.

The loader, the schema validation and the linter's rules all report `Problem`s, so every report
(text, JSON, GitHub annotations) is built from the same record, whose message is made fit to show when it is made
(toolkit/shown_text.py): a URL or setting quoted from the repo shows no password, and a value's line break or
other control character is an escape, never a line of its own. Codes are stable: add, never renumber.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from toolkit.core.entities.kinds import EntityRef
from toolkit.shown_text import printable, shown


class Severity(str, Enum):
    """Errors fail a lint run; warnings do not unless `--strict`."""

    ERROR = "error"
    WARNING = "warning"


# The codes this package reports, with a one-line description (for `toolkit lint --list-rules`).
UNREADABLE = "YM001"
SYNTAX = "YM002"
DUPLICATE_KEY = "YM003"
EMPTY = "YM004"
NOT_A_MAPPING = "YM005"
UNSUPPORTED_YAML = "YM006"
SCHEMA = "SC001"

CODES: dict[str, str] = {
    UNREADABLE: "The file is not UTF-8 text (binary or another encoding) or cannot be read.",
    SYNTAX: "The file is not valid YAML (or holds more than one document).",
    DUPLICATE_KEY: "A key appears twice in the same mapping (YAML parsers silently keep the last one).",
    EMPTY: "The file holds no entity.",
    NOT_A_MAPPING: "The top level of the file is not a mapping of fields.",
    UNSUPPORTED_YAML: ("A YAML feature entities do not use: complex keys, custom tags, recursive aliases, nesting "
                       "deeper than 50 levels, aliases or merges that expand past 250,000 values or past 1 MiB of "
                       "text plus four times the file's length, a file over 8 MiB."),
    SCHEMA: "A field violates the entity's JSON Schema: type, required field, allowed value, unknown key.",
}


@dataclass(frozen=True, order=True)
class Problem:
    """One finding at `file:line:column` (1-based); `entity` is None when the file has no usable entity."""

    file: Path
    line: int
    column: int
    code: str
    severity: Severity
    message: str
    entity: EntityRef | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", shown(self.message))

    @property
    def location(self) -> str:
        """`file:line:column`, the prefix editors and CI annotations understand; the file's name (a commit names it)
        with the message's escapes."""
        return f"{printable(str(self.file))}:{self.line}:{self.column}"

    def __str__(self) -> str:
        return f"{self.location}: {self.code} {self.message}"

    def to_dict(self) -> dict[str, object]:
        """The JSON form of `toolkit lint --format json`."""
        return {
            "file": str(self.file),
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": self.severity.value,
            "entity": None if self.entity is None else str(self.entity),
            "message": self.message,
        }
