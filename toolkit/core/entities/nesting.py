"""How deep the data read from a config repo may nest: one limit for YAML entities (yaml_loader) and JSON quality
suites (quality_suites).

Every walk over what they read (schema checks, messages quoting a value, json, comparisons, the toolkit's own walks)
may recurse once or a few times per level, in Python or in C; the limit keeps the deepest document far inside
Python's recursion limit of 1,000 frames (tests/unit/entities/test_loader_fuzz.py runs every walk at this depth in
300 frames). Real entities and suites nest fewer than ten levels.
"""

from __future__ import annotations

MAX_DEPTH = 50


def nesting(value: object) -> int:
    """How many lists and mappings deep `value` nests (0 for a scalar, 1 for a flat list), counted level by level:
    without the recursion the limit guards."""
    depth, level = 0, [value]
    while collections := [item for item in level if isinstance(item, (dict, list))]:
        depth += 1
        level = [child for item in collections for child in (item.values() if isinstance(item, dict) else item)]
    return depth
