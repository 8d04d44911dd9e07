"""Fixture repos for lint tests: the template repo with the files of one fixture folder laid over it.

A fixture folder (`fixtures/CL001/`) holds files in the repo layout that replace or add files of the
template; a file whose whole content is `# delete` removes that file from the copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DELETE_MARK = "# delete"


def fixture_repo(name: str, target: Path) -> Path:
    """A copy of the template at `target` with `fixtures/<name>/` laid over it; returns the repo root."""
    shutil.copytree(TEMPLATE, target)
    overlay = FIXTURES / name
    for source in sorted(p for p in overlay.rglob("*") if p.is_file()):
        destination = target / source.relative_to(overlay)
        if source.read_bytes().strip() == DELETE_MARK.encode():
            destination.unlink()
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    return target


def overlaid_files(name: str, root: Path) -> set[Path]:
    """The files of the fixture repo at `root` that the fixture replaced or added."""
    overlay = FIXTURES / name
    return {(root / p.relative_to(overlay)).resolve() for p in overlay.rglob("*") if p.is_file()}
