"""Naming what exists when a name does not: 'did you mean' and the list of known names."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def known_names(name: str, names: Iterable[str], what: str) -> str:
    """`did you mean 'primary'? Known clusters: backup, primary.` (or that there are none)."""
    choices = sorted(names)
    if not choices:
        return f"the repo has no {what}"
    close = difflib.get_close_matches(name, choices, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"{hint}known {what}: {', '.join(choices)}"
