"""A value of the repo that a lint message quotes cannot forge a line of the report: its line breaks, terminal
escapes and bidirectional overrides are written as escapes (toolkit/shown_text.py, through `Problem`). In CI the
GitHub format's lines are workflow commands: a quoted `\n::error ...` would be a command of its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.lint.overlay import TEMPLATE
from toolkit.cli.main import main
from toolkit.shown_text import printable, shown

FORGED = "clicks\n::error file=README.md,line=1::forged\r\x1b[2K\u2028\u202eevil"


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "conf"
    shutil.copytree(TEMPLATE, root)
    feed = root / "feeds" / "clicks.yaml"
    text = feed.read_text(encoding="utf-8")
    assert "name: clicks\n" in text
    escaped = FORGED.encode("unicode_escape").decode("ascii").replace('"', '\\"')
    feed.write_text(text.replace("name: clicks\n", f'name: "{escaped}"\n', 1), encoding="utf-8")
    return root


@pytest.mark.parametrize("output_format", ["text", "github", "json"])
def test_a_quoted_value_is_one_line_of_the_report_whatever_it_holds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str) -> None:
    root = _repo(tmp_path)

    code = main(["lint", str(root), "--format", output_format])
    out, err = capsys.readouterr()

    assert code == 1
    if output_format != "json":
        start = str(root) if output_format == "text" else f"::error file={root}"
        findings = out.split("\n")[:-1]  # the summary is on stderr
        assert [line.startswith(start) for line in findings] == [True, True]  # SC001, and RP004 for the feed
        assert not any(line.startswith("::error file=README.md") for line in out.split("\n"))
    assert "\x1b" not in out and "\u2028" not in out and "\u202e" not in out and "\r" not in out
    assert "clicks\\n::error file=README.md,line=1::forged\\r\\x1b[2K\\u2028\\u202eevil" in out.replace("\\\\", "\\")


def test_printable_escapes_what_breaks_or_disguises_a_line_and_keeps_the_rest() -> None:
    assert printable("a\tb\nc\x00\x7f\x85\u2029\u2066d") == "a\\tb\\nc\\x00\\x7f\\x85\\u2029\\u2066d"
    assert printable("prêt à l'emploi: 100% ✓") == "prêt à l'emploi: 100% ✓"
    assert shown("jdbc:mysql://etl:hunter2@db/x\nnext") == "jdbc:mysql://etl:***@db/x\\nnext"


@pytest.mark.parametrize("output_format", ["text", "github"])
def test_a_file_name_cannot_forge_a_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            output_format: str) -> None:
    """A finding's location is the file's path, which a commit names: it is written with the same escapes."""
    root = tmp_path / "conf"
    shutil.copytree(TEMPLATE, root)
    forged = root / "feeds" / "x\nclicks.yaml:1:1: FD001 forged line\x1b[2K.yaml"
    (root / "feeds" / "clicks.yaml").rename(forged)

    main(["lint", str(root), "--format", output_format])
    out, _ = capsys.readouterr()

    assert "\x1b" not in out
    assert not any(line.startswith("clicks.yaml:1:1") for line in out.split("\n"))
    assert "x\\nclicks.yaml:1:1: FD001 forged line\\x1b[2K.yaml" in out


def test_a_value_is_masked_whole_across_an_escaped_line_break() -> None:
    """Escaped first, then masked: a line break inside a secret does not end what is masked."""
    assert shown("password=ab\nS3cr1 rest") == "password=*** rest"
    assert shown(";password={S3cr\n1};x=1") == ";password=***;x=1"
