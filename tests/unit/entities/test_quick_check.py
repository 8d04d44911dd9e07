"""The fast yes/no schema check agrees with the full jsonschema validation it stands in for: on the
template's entities, and on random mutations of them (a key dropped, a value replaced)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.schemas import quick_check, validator
from toolkit.core.entities.yaml_loader import load_document

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
DOCUMENTS = [load_document(p)[0].data for p in sorted(TEMPLATE.glob("*/*.yaml"))]


def agree(data: dict[str, Any]) -> tuple[bool, bool]:
    kind = Kind(data["kind"])
    return quick_check(kind)(data), not any(True for _ in validator(kind).iter_errors(data))


@pytest.mark.parametrize("index", range(len(DOCUMENTS)))
def test_template_entities_are_valid_for_both(index: int) -> None:
    assert agree(DOCUMENTS[index]) == (True, True)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["", "hours(1)", "hours(0)", "2026-02-30T00:00Z", "2026-01-01T00:00Z", "x y", "source", "FIFO", "bogus"]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.sampled_from(["a", "name"]), st.integers(), max_size=2))


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(DOCUMENTS) - 1), choice=st.integers(0, 10_000), drop=st.booleans(), value=VALUES)
def test_mutated_entities_get_the_same_verdict(index: int, choice: int, drop: bool, value: Any) -> None:
    data = copy.deepcopy(DOCUMENTS[index])
    paths = [p for p in _paths(data) if p[0] != "kind"]
    path = paths[choice % len(paths)]
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    fast, full = agree(data)
    assert fast == full, (path, value, drop)


@pytest.mark.parametrize("kind", list(Kind))
def test_a_document_of_another_kind_fails_the_const_rule_of_both(kind: Kind) -> None:
    """`kind` is the schemas' `const` rule, whose code the quick check generates without a message."""
    other = next(d for d in DOCUMENTS if d["kind"] != kind.value)
    assert quick_check(kind)(other) is False
    assert any(error.validator == "const" for error in validator(kind).iter_errors(other))
