"""`toolkit metrics --textfile` killed with SIGKILL at points across its run (loading the repo, reading the ledger,
writing the text, renaming it), a real process each time: the file node_exporter reads is whole after every kill,
and the next call removes what a killed call left (a dead process's temporary file) and says so."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.integration.killing_calls import killed_when
from tests.unit.cli.ledger_site import NOW, Site
from toolkit.cli.metrics_exposition import TEXTFILE

WRITING_ATTEMPTS = 4
# when each call is killed, as parts of a whole call's time on the machine, measured first (about 1 s on a slow day
# here, under 0.5 s on CI's machine, where fixed delays left most calls finished before their kill)
KILL_AT = (0.02, 0.1, 0.2, 0.3, 0.4, 0.55, 0.7, 0.85)


def kill_when_writing(argv: list[str], folder: Path) -> bool:
    """Start the call; SIGKILL it as soon as its temporary file appears or the textfile changes (its write takes
    microseconds for this ledger: the poll may miss it). True when it was killed that way."""
    target = folder / TEXTFILE
    before = target.stat()

    def writing(pid: int) -> bool:
        now = target.stat()
        return (now.st_ino, now.st_mtime_ns, now.st_size) != (before.st_ino, before.st_mtime_ns, before.st_size) \
            or any(name.startswith(f".{TEXTFILE}.{pid}.") for name in os.listdir(folder))

    return killed_when(argv, writing)


def test_a_call_killed_at_any_point_leaves_a_whole_textfile_and_the_next_call_cleans_up(metered: Site,
                                                                                        tmp_path: Path) -> None:
    folder = tmp_path / "textfiles"
    folder.mkdir()
    argv = [sys.executable, "-m", "toolkit", "metrics", "--repo", str(metered.conf), "--cluster", "primary",
            "--now", NOW, "--textfile", str(folder)]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    whole = (folder / TEXTFILE).read_bytes()
    assert whole.endswith(b"\n") and b'feed_toolkit_metrics_read_ok{cluster="primary"} 1.0' in whole
    started = time.monotonic()  # a whole call with the parse cache warm, as the killed ones run
    assert subprocess.run(argv, capture_output=True, timeout=120, check=False).returncode == 0
    whole_call = time.monotonic() - started
    killed = 0
    for part in KILL_AT:
        call = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(part * whole_call)
        if call.poll() is None:
            os.kill(call.pid, signal.SIGKILL)
            killed += 1
        call.wait(timeout=120)
        # the same ledger and time: the old file and a new one are the same bytes, so a whole file is these
        assert (folder / TEXTFILE).read_bytes() == whole
        left = [path.name for path in folder.iterdir() if path.name != TEXTFILE]
        assert all(re.fullmatch(rf"\.{re.escape(TEXTFILE)}\.\d+\.\w+\.tmp", name) for name in left), left
    assert killed >= len(KILL_AT) // 2, \
        f"only {killed} of {len(KILL_AT)} calls were still running when killed (a whole call took {whole_call:.2f} s)"
    for _ in range(WRITING_ATTEMPTS):  # and the moment it starts writing, when the poll catches it
        kill_when_writing(argv, folder)
        assert (folder / TEXTFILE).read_bytes() == whole
    left = [path for path in folder.iterdir() if path.name != TEXTFILE]
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("the temporary file of a call killed while writing") == len(left)
    assert [path.name for path in folder.iterdir()] == [TEXTFILE]
    assert (folder / TEXTFILE).read_bytes() == whole
