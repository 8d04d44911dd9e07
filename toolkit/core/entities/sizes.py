"""Sizes in bytes as feed properties spell them: `134217728`, `128MB`, `1 GB` (units of 1024, case-insensitive).
One parser for every such property (compaction.target-size, replication.distributed-above-bytes), so that they
take the same spellings."""

from __future__ import annotations

import re

_UNITS = {"": 1, "B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}
_SIZE = re.compile(r"\s*(\d+)\s*([KMGT]?B)?\s*", re.IGNORECASE)
SIZE_HELP = "a whole number of bytes, or one with a unit (KB, MB, GB, TB), such as 128MB"


def parse_size(text: str) -> int | None:
    """The bytes `text` says, or None when it says none."""
    found = _SIZE.fullmatch(text)
    return int(found.group(1)) * _UNITS[(found.group(2) or "").upper()] if found else None
