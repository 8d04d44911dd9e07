"""Converted entities as files of a config repo (`clusters/NAME.yaml`, `feeds/...`, `processes/...`,
`datasources/...`).

Every target is checked before anything is written: two inputs defining the same entity, a file that already
exists (without `force`), or a symbolic link on the way to one (a kind folder that is a link) stop the run with
nothing written. Each file is written atomically (a hidden temporary file in the same folder, then a rename,
toolkit/core/storage/local_files.py), so a reader never sees half a file. Each text is
first checked the way the linter reads it (YAML loader, then JSON Schema); its problems are reported with
their line in the written file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.authoring.convert.falcon_xml import Conversion
from toolkit.authoring.convert.tracking import Report
from toolkit.authoring.convert.yaml_writer import render_entity
from toolkit.core.entities.kinds import EntityRef
from toolkit.core.entities.loading import parse_entity
from toolkit.core.storage.local_files import link_on_the_way, replace_file
from toolkit.errors import UsageError


@dataclass
class WriteResult:
    """The files written, and everything reported on the way (conversion reports, then schema problems)."""

    written: list[Path] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)


def write_conversions(conversions: Sequence[Conversion], out: Path, force: bool = False) -> WriteResult:
    """Write each converted entity under `out` (created if missing); UsageError before any write when a
    target is taken (by another input, or by an existing file without `force`) or `out` is not a directory.
    """
    if out.is_symlink() and not out.exists():
        raise UsageError(f"--out {out} is a symbolic link to nothing: give the directory of a config repo (it is "
                         "created if missing).")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file: pass the directory of a config repo (it is created if missing).")
    targets = _targets(conversions, out)
    for _, target in targets.values():
        if (link := link_on_the_way(out, target)) is not None:
            raise UsageError(f"{link} is a symbolic link: converted entities are never written through one; remove "
                             "it, or choose another --out.")
    if not force:
        for source, target in targets.values():
            if target.exists() or target.is_symlink():  # a link to nothing is something there too
                raise UsageError(
                    f"{target} already exists (converting {source}): pass --force to overwrite it, "
                    "or choose another --out."
                )
    result = WriteResult()
    for conversion in conversions:
        result.reports.extend(conversion.reports)
        entity = conversion.entity
        if entity is None:
            continue
        target = targets[EntityRef(entity.kind, entity.name)][1]
        text = render_entity(entity.kind.value, entity.data)
        _, problems = parse_entity(text, target)
        result.reports.extend(Report(problem.location, f"{problem.code} {problem.message}") for problem in problems)
        _write_atomically(target, text)
        result.written.append(target)
    return result


def _targets(conversions: Sequence[Conversion], out: Path) -> dict[EntityRef, tuple[Path, Path]]:
    """The source and target file of each entity; UsageError when two inputs define the same entity."""
    targets: dict[EntityRef, tuple[Path, Path]] = {}
    for conversion in conversions:
        entity = conversion.entity
        if entity is None:
            continue
        ref = EntityRef(entity.kind, entity.name)
        if ref in targets:
            raise UsageError(
                f"{targets[ref][0]} and {conversion.source} both define {entity.kind.value} '{entity.name}': "
                "pass only one of them."
            )
        targets[ref] = (conversion.source, out / entity.kind.folder / f"{entity.name}.yaml")
    return targets


def _write_atomically(target: Path, text: str) -> None:
    """Write `text` to `target` through a hidden temporary file in the same folder, then a rename
    (toolkit/core/storage/local_files.py)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_file(target, text.encode("utf-8"))
    except OSError as err:
        raise UsageError(f"Cannot write {target}: {err.strerror or err}; choose an --out you can write to.") from None
