"""Validation of OpenLineage events against the specification's JSON Schemas (vendored in tests/openlineage_spec/,
see its SOURCE.md) and the toolkit's own facet schemas (toolkit/services/openlineage/schemas/): the event against
`OpenLineage.json#/$defs/RunEvent`, then every facet against the schema its `_schemaURL` names."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SPEC = Path(__file__).parent / "openlineage_spec"
TOOLKIT_SCHEMAS = Path(__file__).resolve().parents[1] / "toolkit" / "services" / "openlineage" / "schemas"


@lru_cache(maxsize=1)
def _registry() -> Registry:
    files = [SPEC / "OpenLineage.json", *sorted((SPEC / "facets").glob("*.json")),
             *sorted(TOOLKIT_SCHEMAS.rglob("*.json"))]
    resources = []
    for path in files:
        document = json.loads(path.read_text())
        resources.append((document["$id"], Resource.from_contents(document)))
    return Registry().with_resources(resources)


def _validate(instance: Any, ref: str, where: str) -> None:
    validator = Draft202012Validator({"$ref": ref}, registry=_registry())
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        raise AssertionError(f"{where} is not valid against {ref}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5]))


def validate_facet(facet: dict[str, Any], where: str = "the facet") -> None:
    """AssertionError naming the first problems when `facet` breaks the schema its `_schemaURL` names."""
    _validate(facet, facet["_schemaURL"], where)


def validate_event(event: dict[str, Any]) -> None:
    """AssertionError naming the first problems when `event` or one of its facets breaks its schema."""
    _validate(event, "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent", "the event")
    for where, facets in _facet_groups(event):
        for key, facet in facets.items():
            url = facet.get("_schemaURL")
            assert url, f"the facet {where}.{key} has no _schemaURL"
            validate_facet(facet, f"the facet {where}.{key}")


def _facet_groups(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    groups = [("run", event["run"].get("facets", {})), ("job", event["job"].get("facets", {}))]
    for kind, facet_field in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        for k, dataset in enumerate(event.get(kind, [])):
            groups.append((f"{kind}[{k}].facets", dataset.get("facets", {})))
            groups.append((f"{kind}[{k}].{facet_field}", dataset.get(facet_field, {})))
    return groups
