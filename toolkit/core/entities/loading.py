"""One entity file in, one entity or its problems out: YAML, then schema, then the typed model."""

from __future__ import annotations

from pathlib import Path

from toolkit.core.entities.build import build_entity
from toolkit.core.entities.document import Document
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import Entity
from toolkit.core.entities.problems import Problem
from toolkit.core.entities.validation import validate_document
from toolkit.core.entities.yaml_loader import load_document, parse_document


def load_entity(file: Path) -> tuple[Entity | None, list[Problem]]:
    """Read `file`; the entity is None whenever there are problems (never raises for bad content)."""
    return _entity(*load_document(file))


def parse_entity(content: bytes | str, file: Path) -> tuple[Entity | None, list[Problem]]:
    """Like `load_entity` for content already in memory, reported as coming from `file`."""
    return _entity(*parse_document(content, file))


def declared_ref(file: Path) -> EntityRef | None:
    """The entity a file that fails to load stands for, so that references to it are not also reported as
    missing (one cause, one finding): the `kind` and `name` it declares, as far as its YAML reads, else the
    kind of its folder and its file name; None for a file outside the kind folders that declares nothing."""
    return unloaded_document(file)[0]


def unloaded_document(file: Path) -> tuple[EntityRef | None, Document | None]:
    """What a file that fails to load stands for (`declared_ref`) and its YAML document when it reads (the schema
    refused it): the linter still checks the references it can read there, so one error hides no other."""
    doc, _ = load_document(file)
    data = doc.data if doc is not None else {}
    kinds = {kind.value: kind for kind in Kind}
    folders = {kind.folder: kind for kind in Kind}
    declared_kind, declared_name = data.get("kind"), data.get("name")
    kind = kinds.get(declared_kind) if isinstance(declared_kind, str) else None
    kind = kind or folders.get(file.parent.name)
    name = declared_name if isinstance(declared_name, str) and declared_name else file.stem
    return (EntityRef(kind, name) if kind is not None else None), doc


def _entity(doc: Document | None, problems: list[Problem]) -> tuple[Entity | None, list[Problem]]:
    if doc is None:
        return None, problems
    problems = validate_document(doc)
    if problems:
        return None, problems
    return build_entity(doc), []
