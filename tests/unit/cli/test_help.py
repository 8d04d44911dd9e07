"""`toolkit --help` and every command's help read as written (issue 34: 130 lines whose docstrings, kept with their
line breaks, broke sentences mid-line): one short line per command, and paragraphs wrapped to the terminal."""

from __future__ import annotations

import pytest

from toolkit.cli.main import COMMANDS, main


def rendered(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    assert main([*argv, "--help"]) == 0
    return capsys.readouterr().out


def description(text: str) -> list[list[str]]:
    """The prose paragraphs between the usage line and the arguments or options; example blocks (kept verbatim by
    `\\b`: command lines, crontab lines) are left out."""
    body = text.split("\n\n", 1)[1]
    for section in ("\nArguments:", "\nOptions:", "\nCommands:", "\noptions:"):  # the last argparse's (retain)
        body = body.split(section)[0]
    paragraphs = [block.splitlines() for block in body.strip("\n").split("\n\n")]
    verbatim = ("toolkit ", "spark-submit ", "* * *", "python ")
    return [lines for lines in paragraphs if not any(mark in line for line in lines for mark in verbatim)]


@pytest.mark.parametrize("width", [80, 120])
def test_the_command_list_is_one_short_line_each(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    text = rendered(capsys, monkeypatch, width)
    assert len(text.splitlines()) <= 8 + 2 * len(COMMANDS)
    listed = text.split("Commands:\n", 1)[1].splitlines()
    assert sorted(line.split()[0] for line in listed if not line.startswith(" " * 4)) == sorted(COMMANDS)
    assert all(len(line) <= width for line in listed)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_commands_help_wraps_its_paragraphs_to_the_terminal(capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 command: str) -> None:
    width = 80
    for lines in description(rendered(capsys, monkeypatch, width, command)):
        assert all(len(line) <= width for line in lines), lines
        # Wrapped greedily: a line ends only where the next word would not fit (no line break kept from source).
        for line, following in zip(lines, lines[1:], strict=False):
            assert len(line) + 1 + len(following.split()[0]) > width - 2, (line, following)
