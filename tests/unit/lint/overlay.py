"""Repos for lint tests: the template repo with the edits of one case of `cases/<CODE>.yaml` made to a copy.

A case file holds a rule's small pass and fail cases as data:

    - name: what the case shows
      like: another case of the file, whose edits are made first (optional)
      edit:
        feeds/orders.yaml: |            # a file's whole new content
          kind: feed
        feeds/visits.yaml: null         # the file deleted
        clusters/primary.yaml:          # replacements of text that occurs once in the file
          - {old: "staging: /feed-toolkit/staging", new: "staging: /feed-toolkit/working"}
      findings:                         # every problem the linter reports: code, file, line ([] when clean)
        - [CL004, clusters/primary.yaml, 31]
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
CASES = Path(__file__).resolve().parent / "cases"

Case = dict[str, Any]


def cases_of(code: str) -> list[Case]:
    """The cases of the rule `code`, in file order."""
    return yaml.safe_load((CASES / f"{code}.yaml").read_text(encoding="utf-8"))


def case_repo(code: str, name: str, target: Path) -> Path:
    """A copy of the template at `target` with the edits of the case `name` of `code` (and of the cases it is
    `like`) made; returns the repo root."""
    by_name = {case["name"]: case for case in cases_of(code)}
    chain = [by_name[name]]
    while "like" in chain[0]:
        chain.insert(0, by_name[chain[0]["like"]])
    shutil.copytree(TEMPLATE, target)
    for case in chain:
        _edit(target, case.get("edit") or {})
    return target


def fixture_repo(code: str, target: Path) -> Path:
    """The repo of the first case of `code`: by convention a case that fails with that rule only."""
    return case_repo(code, cases_of(code)[0]["name"], target)


def _edit(root: Path, edits: dict[str, Any]) -> None:
    for name, edit in edits.items():
        path = root / name
        if edit is None:
            path.unlink()
        elif isinstance(edit, str):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(edit)
        else:
            text = path.read_text()
            for replacement in edit:
                old, new = replacement["old"], replacement["new"]
                if text.count(old) != 1:
                    raise ValueError(f"{name}: the text to replace occurs {text.count(old)} times, not once: {old!r}")
                text = text.replace(old, new)
            path.write_text(text)
