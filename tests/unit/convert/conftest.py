"""Shared fixtures of the converter tests: the sample Falcon files, and `toolkit convert-falcon` as users run it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolkit.cli import main as cli_main

FALCON = Path(__file__).resolve().parent / "falcon"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def convert(capsys: pytest.CaptureFixture[str]) -> Run:
    """Run `toolkit convert-falcon ARGS` through the real `main` (its exit codes and error lines)."""

    def run(*argv: object) -> tuple[int, str, str]:
        code = cli_main.main(["convert-falcon", *map(str, argv)])
        out, err = capsys.readouterr()
        return code, out, err

    return run
