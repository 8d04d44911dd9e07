"""Shared fixtures of the converter tests: the sample Falcon files, and `toolkit convert-falcon` as users run it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import typer

from toolkit.cli import main as cli_main
from toolkit.cli.commands.convert import convert_falcon_command

FALCON = Path(__file__).resolve().parent / "falcon"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def convert(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run `toolkit convert-falcon ARGS` through the real `main` (its exit codes and error lines), with the
    command registered on a test app: `toolkit/cli/main.py` registers it in its own change."""
    app = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
    app.callback()(lambda: None)  # a group, so that the command is called by its name as under `toolkit`
    app.command("convert-falcon")(convert_falcon_command)
    monkeypatch.setattr(cli_main, "app", app)

    def run(*argv: object) -> tuple[int, str, str]:
        code = cli_main.main(["convert-falcon", *map(str, argv)])
        out, err = capsys.readouterr()
        return code, out, err

    return run
