"""The pages and files the `toolkit` command writes (toolkit/cli/output_files.py): a temporary file left by a call
killed before its rename is removed by the next write of the same file when its writer is dead, and only then;
other files beside it are left alone. The real kill is tests/integration/report/test_report_killed.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkit.cli.output_files import write_atomically

# a pid no process has: above the kernel's largest (pid_max is at most 2**22)
DEAD = 2**22 + 17


def test_a_dead_writers_temporary_file_is_removed_and_the_rest_left(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "status.html"
    dead = tmp_path / f".status.html.{DEAD}.abcd1234.tmp"
    live = tmp_path / f".status.html.{os.getpid()}.abcd1234.tmp"
    other_page = tmp_path / f".other.html.{DEAD}.abcd1234.tmp"
    not_a_pid = tmp_path / ".status.html.notes.tmp"
    folder = tmp_path / f".status.html.{DEAD}.folder.tmp"
    link = tmp_path / f".status.html.{DEAD}.link.tmp"
    for path in (dead, live, other_page, not_a_pid):
        path.write_text("left")
    folder.mkdir()
    link.symlink_to(live)

    write_atomically(out, "<html>page</html>\n")

    assert out.read_text() == "<html>page</html>\n"
    assert not dead.exists()
    assert all(path.exists() for path in (live, other_page, not_a_pid, folder, link))
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        path.name for path in (out, live, other_page, not_a_pid, folder, link))
    assert capsys.readouterr().err == (f"toolkit: removed {dead}, the temporary file of a call killed while writing "
                                       f"{out}\n")


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "status.html"
    out.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(out, "\udcff")  # a lone surrogate: not UTF-8
    assert out.read_text() == "old"
    assert [path.name for path in tmp_path.iterdir()] == ["status.html"]
