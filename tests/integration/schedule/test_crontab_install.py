"""`toolkit schedule --install-crontab` against a stand-in for the crontab program (no cron on this machine): it
keeps its crontab in a file and answers -l and - as crontab does."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli.main import main
from toolkit.orchestration.schedule.crontab_install import CRONTAB_VARIABLE

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
STAND_IN = """#!/bin/sh
# A stand-in for crontab(1): the user's crontab is the file $CRONTAB_FILE.
case "$1" in
  -l) [ -f "$CRONTAB_FILE" ] || { echo "no crontab for tester" >&2; exit 1; }; cat "$CRONTAB_FILE" ;;
  -) cat > "$CRONTAB_FILE" ;;
  *) echo "usage" >&2; exit 2 ;;
esac
"""
USERS = "MAILTO=me@example.com\n# my backup\n30 2 * * * /usr/local/bin/backup.sh\n"


@pytest.fixture
def crontab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    program = tmp_path / "crontab"
    program.write_text(STAND_IN)
    program.chmod(0o755)
    monkeypatch.setenv(CRONTAB_VARIABLE, str(program))
    monkeypatch.setenv("CRONTAB_FILE", str(tmp_path / "users-crontab"))
    return tmp_path / "users-crontab"


def install(capsys: pytest.CaptureFixture[str], cluster: str = "primary", *extra: str) -> tuple[int, str, str]:
    code = main(["schedule", "--repo", str(TEMPLATE), "--cluster", cluster, "--install-crontab",
                 "--toolkit", "/opt/ft/bin/toolkit", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_into_no_crontab_the_block_is_the_crontab(crontab: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = install(capsys)
    assert code == 0 and out == ""
    assert err.startswith("schedule: added the block of cluster 'primary' (")
    text = crontab.read_text()
    assert text.startswith("# BEGIN feed-toolkit primary\n") and text.endswith("# END feed-toolkit primary\n")
    assert "PYSPARK_PYTHON=/opt/ft/bin/python" in text


def test_the_users_lines_are_kept_and_a_reinstall_replaces_only_its_block(
        crontab: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crontab.write_text(USERS)
    assert install(capsys)[0] == 0
    first = crontab.read_text()
    assert first.startswith(USERS + "\n# BEGIN feed-toolkit primary\n")
    crontab.write_text(first + "15 * * * * /usr/local/bin/mine.sh\n")  # the user adds a line after the block
    code, _, err = install(capsys, "primary", "--toolkit", "/opt/other/bin/toolkit")
    assert code == 0 and "replaced the block of cluster 'primary'" in err
    text = crontab.read_text()
    assert text.count("# BEGIN feed-toolkit primary") == 1 and "/opt/other/bin/toolkit" in text
    assert "/opt/ft/bin/toolkit" not in text
    assert text.startswith(USERS + "\n15 * * * * /usr/local/bin/mine.sh\n\n# BEGIN feed-toolkit primary\n")
    assert install(capsys, "primary", "--toolkit", "/opt/other/bin/toolkit")[2] == (
        "schedule: the crontab's block of cluster 'primary' is up to date; nothing written.\n")


def test_another_clusters_block_is_left_as_it_is(crontab: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crontab.write_text(USERS)
    install(capsys, "backup")
    install(capsys, "primary")
    text = crontab.read_text()
    assert text.index("# BEGIN feed-toolkit backup") < text.index("# END feed-toolkit backup") < \
        text.index("# BEGIN feed-toolkit primary")
    install(capsys, "backup", "--toolkit", "/opt/new/bin/toolkit")
    again = crontab.read_text()
    assert again.count("# BEGIN feed-toolkit backup") == 1 and again.count("# BEGIN feed-toolkit primary") == 1


def test_a_begin_without_its_end_is_refused_and_nothing_is_written(
        crontab: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = USERS + "# BEGIN feed-toolkit primary\n0 * * * * something\n"
    crontab.write_text(damaged)
    code, _, err = install(capsys)
    assert code == 2
    assert err.strip() == ("toolkit: This user's crontab has '# BEGIN feed-toolkit primary' on line 4 but no "
                           "'# END feed-toolkit primary' after it: put the END line back where the block ends "
                           "(crontab -e), then install again.")
    assert crontab.read_text() == damaged


def test_no_crontab_program_is_one_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(CRONTAB_VARIABLE, str(tmp_path / "missing-crontab"))
    code, _, err = install(capsys)
    assert code == 1
    assert err.strip().startswith(f"toolkit: Cannot run '{tmp_path}/missing-crontab -l' (No such file or directory)")


def test_a_carriage_return_in_the_users_line_stays_in_that_line(crontab: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """cron ends a line at a line feed only: a CR is a character of the user's command. Read as text with universal
    newlines, it became a line feed, and what followed it a cron entry of its own."""
    users = b"0 0 * * * echo one # \r* * * * * touch /tmp/owned\n"
    crontab.write_bytes(users)
    code, _, err = install(capsys)
    assert code == 0
    text = crontab.read_bytes()
    assert text.startswith(users + b"\n# BEGIN feed-toolkit primary\n")
    assert err.endswith("in this user's crontab; its other 1 line(s) kept.\n")
    assert install(capsys)[2] == "schedule: the crontab's block of cluster 'primary' is up to date; nothing written.\n"


def test_a_users_line_that_is_not_utf8_is_kept_byte_for_byte(crontab: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    users = b"0 0 * * * echo caf\xe9\n# \xff\xfe not text\n"
    crontab.write_bytes(users)
    code, _, err = install(capsys)
    assert code == 0 and "Traceback" not in err
    first = crontab.read_bytes()
    assert first.startswith(users + b"\n# BEGIN feed-toolkit primary\n")
    code, _, err = install(capsys, "primary", "--toolkit", "/opt/other/bin/toolkit")  # the block replaced
    assert code == 0 and "replaced the block of cluster 'primary'" in err
    again = crontab.read_bytes()
    assert again.startswith(users + b"\n# BEGIN feed-toolkit primary\n") and b"/opt/other/bin/toolkit" in again
