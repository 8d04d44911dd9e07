"""`toolkit report --out` killed with SIGKILL while it writes the page (a real process, killed the moment its
temporary file appears): the page it replaces is left whole, byte for byte, and the next call removes the killed
call's temporary file (a dead process's), says so, and writes a whole page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.killing_calls import killed_when
from tests.unit.report.report_history import NOW, write_states
from tests.unit.retention.retention_repo import make_repo

ATTEMPTS = 6


def report(conf: Path, out: Path) -> list[str]:
    # a year of 13 entities: a page of some megabytes, so that its write takes long enough to be caught
    return [sys.executable, "-m", "toolkit", "report", "--repo", str(conf), "--cluster", "primary", "--now", NOW,
            "--from", "2025-11-22T00:00Z", "--out", str(out)]


def temporaries(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.*.tmp"))


def kill_while_writing(command: list[str], out: Path) -> bool:
    """Start `command`; SIGKILL it as soon as its temporary file appears. True when it was killed that way."""
    return killed_when(command, lambda pid: any(name.startswith(f".{out.name}.{pid}.")
                                                for name in os.listdir(out.parent)))


def test_a_report_killed_while_writing_leaves_the_old_page_and_the_next_call_cleans_up(tmp_path: Path) -> None:
    conf, _ = make_repo(tmp_path)
    write_states(conf)
    out = tmp_path / "status.html"
    first = subprocess.run(report(conf, out), capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    page = out.read_bytes()
    assert page.rstrip().endswith(b"</html>") and len(page) > 1_000_000
    # Calls until two were killed while writing and the last call was one of them (a call that is not caught in
    # time, on a busy machine, ends whole and removes its killed predecessor's file), at most 3 x ATTEMPTS.
    caught, calls, killed = 0, 0, False
    while calls < 3 * ATTEMPTS and not (caught >= 2 and killed):
        calls += 1
        killed = kill_while_writing(report(conf, out), out)
        if killed:
            caught += 1
            assert out.read_bytes() == page  # the old page, whole
    assert killed, f"the last of {calls} calls was not caught while writing ({caught} were)"
    # each call removed the one its killed predecessor left: the last one's is there
    assert len(temporaries(out)) == 1
    again = subprocess.run(report(conf, out), capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("the temporary file of a call killed while writing") == 1
    assert temporaries(out) == []
    assert out.read_bytes() == page  # the same ledger, the same page


def test_two_reports_at_once_leave_one_whole_page_and_no_temporary_file(tmp_path: Path) -> None:
    """Two cron lines (or a cron line and a person) started at the same moment: both succeed and say nothing on
    stderr, and the page read afterwards is one whole page, the one either would have written, with no temporary file
    left. (Their writes, milliseconds at the end of seconds of reading, seldom overlap: that a live writer's temporary
    file is never taken for a dead one's is tests/unit/cli/test_output_files.py's.)"""
    conf, _ = make_repo(tmp_path)
    write_states(conf)
    out = tmp_path / "status.html"
    alone = subprocess.run(report(conf, out), capture_output=True, text=True, check=False)
    assert alone.returncode == 0, alone.stderr
    page = out.read_bytes()
    for _ in range(3):
        calls = [subprocess.Popen(report(conf, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        said = [call.communicate() for call in calls]
        assert [call.returncode for call in calls] == [0, 0], said
        assert all(err == "" for _, err in said), said
        assert out.read_bytes() == page
        assert temporaries(out) == []
