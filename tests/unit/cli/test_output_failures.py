"""A command whose output cannot be written (stdout redirected to a full disk, a closed pipe) says so in one sentence
on stderr and exits 1, as any failed command: no traceback, and nothing more is tried on that stream."""

from __future__ import annotations

import io
import sys

import pytest

from toolkit.cli.main import main


class _Full(io.StringIO):
    """A stream whose writes fail as a file on a full disk's do."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def fileno(self) -> int:
        raise io.UnsupportedOperation("no descriptor")


@pytest.mark.parametrize("argv", [["--version"], ["lint", "--help"]])
def test_output_that_cannot_be_written_is_one_sentence_and_exit_1(
        argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdout", _Full())
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1
    assert err == "toolkit: cannot write the command's output: No space left on device.\n"
