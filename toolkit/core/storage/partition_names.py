"""Hive's names of partitions (`ds=2026-11-21/region=eu`), which are also their directories below the table:
keys and values escaped as Hive's `FileUtils.escapePathName` (and Spark's `ExternalCatalogUtils`) escape them."""

from __future__ import annotations

import re
from collections.abc import Mapping

# These characters become %XX in names.
_ESCAPED = frozenset([chr(code) for code in range(1, 0x20)] + list('"#%\'*/:=?\\\x7f{[]^'))


def escape_path_name(text: str) -> str:
    return "".join(f"%{ord(char):02X}" if char in _ESCAPED else char for char in text)


def unescape_path_name(text: str) -> str:
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def partition_name(values: Mapping[str, str]) -> str:
    """`ds=2026-11-21/region=eu`: the partition's name (and its directory below the table) as Hive writes it."""
    return "/".join(f"{escape_path_name(key)}={escape_path_name(value)}" for key, value in values.items())
