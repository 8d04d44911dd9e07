"""The toolkit's own facets, named by the spec's rule for custom facets (`{prefix}{name}{entity}Facet`, key
`{prefix}_{name}`) with the prefix `feedToolkit`; their JSON Schemas ship in `schemas/1-0-0/`."""

from __future__ import annotations

from typing import Any

SCHEMA_BASE = "https://feed-toolkit.github.io/spec/facets/1-0-0"
RUN_FACET = "feedToolkit_run"
INSTANCES_FACET = "feedToolkit_instances"


def schema_url(facet: str) -> str:
    return f"{SCHEMA_BASE}/{facet}.json#/$defs/{facet}"


def custom_facet(facet: str, producer: str, **fields: Any) -> dict[str, Any]:
    """A custom facet as a JSON object: the spec's `_producer` and `_schemaURL`, then its fields (None dropped)."""
    return {"_producer": producer, "_schemaURL": schema_url(facet),
            **{key: value for key, value in fields.items() if value is not None}}
