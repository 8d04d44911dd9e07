"""Text quoted from the repo, a failure or a driver, made fit for one line that people and CI read: its secrets
masked (toolkit/secrets_masking.py) and its control characters written as escapes (`\\n`, `\\x1b`, `\\u2028`), so a
value holding a line break, a terminal's escape sequence or a bidirectional override cannot forge another line of a
lint report, a GitHub annotation (`::error ...`) or an error sentence, nor hide what it says."""

from __future__ import annotations

import re

from toolkit.secrets_masking import masked

# C0 and C1 controls, DEL, the Unicode line and paragraph separators and the bidirectional formatting characters.
_UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with each character that would break or disguise its line written as its escape."""
    return _UNSHOWABLE.sub(_escape, text)


def shown(text: str) -> str:
    """`text` as a message shows it: printable, then masked (a line break inside a secret is then part of it, so the
    mask covers the whole)."""
    return masked(printable(text))


def _escape(match: re.Match[str]) -> str:
    return match[0].encode("unicode_escape").decode("ascii")
