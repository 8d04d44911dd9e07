"""The entities a change adds, removes or edits, and the fields it edits (a cluster's entry of `clusters` by its
name): what `toolkit plan` lists for every change, before what each does to the data (retention_changes.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from toolkit.core.entities.model import Entity, Process
from toolkit.core.entities.provenance import workflow_digest
from toolkit.core.entities.repo import ConfigRepo
from toolkit.views.plan.changes import Change


def definition_changes(base: ConfigRepo, head: ConfigRepo) -> list[Change]:
    """One change per entity added, removed or edited, in the repo's order (clusters, feeds, processes...)."""
    before = {entity.ref: entity for entity in base.entities}
    after = {entity.ref: entity for entity in head.entities}
    changes = []
    for ref in sorted(before.keys() | after.keys(), key=lambda ref: (ref.kind.value, ref.name)):
        old, new = before.get(ref), after.get(ref)
        if old is None:
            changes.append(Change(ref.name, ref.kind.value, "added"))
        elif new is None:
            changes.append(Change(ref.name, ref.kind.value, "removed"))
        elif edited := edited_fields(old, new, base.root, head.root):
            changes.append(Change(ref.name, ref.kind.value, f"edited {', '.join(edited)}"))
    return changes


def edited_fields(old: Entity, new: Entity, base_root: Path, head_root: Path) -> list[str]:
    """The fields of the definition that differ, as written in YAML (`clusters[primary].retention`), and
    `workflow file` when a process's workflow file's content differs."""
    edited = list(_differences(old.document.data, new.document.data, ""))
    if isinstance(old, Process) and isinstance(new, Process) and workflow_digest(old, base_root) != workflow_digest(
            new, head_root):
        edited.append("workflow file")
    return edited


def _differences(old: Any, new: Any, path: str) -> Iterator[str]:
    if old == new:
        return
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(old.keys() | new.keys(), key=str):
            yield from _differences(old.get(key), new.get(key), f"{path}.{key}" if path else str(key))
    elif path == "clusters" and _named(old) and _named(new):
        olds, news = {item["name"]: item for item in old}, {item["name"]: item for item in new}
        for name in sorted(olds.keys() | news.keys()):
            if name not in news or name not in olds:
                yield f"clusters[{name}]"
            else:
                yield from _differences(olds[name], news[name], f"clusters[{name}]")
    else:
        yield path


def _named(items: Any) -> bool:
    return isinstance(items, list) and all(isinstance(item, Mapping) and isinstance(item.get("name"), str)
                                           for item in items)
