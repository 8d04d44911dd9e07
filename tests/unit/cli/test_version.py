"""`toolkit --version`: the installed distribution's version, else the source tree's (issue 37)."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

import toolkit
from toolkit.cli.main import main

PROJECT = Path(__file__).resolve().parents[3]


def test_version_prints_the_installed_distributions_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"feed-toolkit {metadata.version('feed-toolkit')}\n"


def test_version_comes_before_any_command_and_runs_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version", "status", "--process", "nowhere"]) == 0
    assert capsys.readouterr().out.startswith("feed-toolkit ")


def test_a_source_tree_not_installed_gives_its_own_version(capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)  # imported by --version alone
    monkeypatch.setattr(toolkit, "__version__", "9.8.7")
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "feed-toolkit 9.8.7\n"


def test_the_source_trees_version_is_pyprojects() -> None:
    declared = re.search(r'^version = "([^"]+)"$', (PROJECT / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared is not None and toolkit.__version__ == declared.group(1)
