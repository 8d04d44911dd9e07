"""A config repo (the template's, with a file:// primary cluster) and its copy as the base of a plan, with clicks
instances 100, 50 and 5 days old; and the calls the plan tests make."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import utc
from toolkit.cli.main import main

NOW = utc(2026, 11, 26, 0)
CLICKS = "feeds/clicks.yaml"


def plan(capsys: pytest.CaptureFixture[str], head: Path, base: Path, *argv: str) -> tuple[int, dict, str]:
    code = main(["plan", "--repo", str(head), "--base-repo", str(base), "--now", "2026-11-26T00:00Z",
                 "--format", "json", "--cluster", "primary", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def edit(repo: Path, file: str, old: str, new: str) -> None:
    path = repo / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
