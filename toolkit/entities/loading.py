"""One entity file in, one entity or its problems out: YAML, then schema, then the typed model."""

from __future__ import annotations

from pathlib import Path

from toolkit.entities.build import build_entity
from toolkit.entities.document import Document
from toolkit.entities.model import Entity
from toolkit.entities.problems import Problem
from toolkit.entities.validation import validate_document
from toolkit.entities.yaml_loader import load_document, parse_document


def load_entity(file: Path) -> tuple[Entity | None, list[Problem]]:
    """Read `file`; the entity is None whenever there are problems (never raises for bad content)."""
    return _entity(*load_document(file))


def parse_entity(content: bytes | str, file: Path) -> tuple[Entity | None, list[Problem]]:
    """Like `load_entity` for content already in memory, reported as coming from `file`."""
    return _entity(*parse_document(content, file))


def _entity(doc: Document | None, problems: list[Problem]) -> tuple[Entity | None, list[Problem]]:
    if doc is None:
        return None, problems
    problems = validate_document(doc)
    if problems:
        return None, problems
    return build_entity(doc), []
