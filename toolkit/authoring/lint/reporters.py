"""Printing problems: `text` (`path:line:col: CODE message`), `json`, and `github` (workflow annotations)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from toolkit.core.entities.problems import Problem
from toolkit.shown_text import printable


def as_text(problems: Sequence[Problem]) -> str:
    return "\n".join(str(problem) for problem in problems)


def as_json(problems: Sequence[Problem]) -> str:
    return json.dumps([problem.to_dict() for problem in problems], indent=2)


def _escape(text: str, property_value: bool = False) -> str:
    """GitHub's workflow-command escaping; property values also escape ':' and ','."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def as_github(problems: Sequence[Problem]) -> str:
    return "\n".join(
        f"::{problem.severity.value} file={_escape(printable(str(problem.file)), True)},line={problem.line},"
        f"col={problem.column},title={_escape(problem.code, True)}::{_escape(problem.message)}"
        for problem in problems
    )


REPORTERS: dict[str, Callable[[Sequence[Problem]], str]] = {"text": as_text, "json": as_json, "github": as_github}
