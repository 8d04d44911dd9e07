"""A line of `toolkit schedule --format crontab` run by /bin/sh as cron runs it gets its instance time."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.schedule.cadence_repo import make_cadence_repo
from tests.unit.schedule.crontab_text import blocks
from toolkit.cli.main import main

CHECKOUT = Path(__file__).resolve().parents[3]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_generated_line_run_by_sh_gets_its_instance_time(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The line as cron runs it: /bin/sh -c with the crontab's variables in the environment; spark-submit is a
    stand-in script that records its arguments (the entrypoint is not the subject here)."""
    repo = make_cadence_repo(tmp_path)
    recorder = tmp_path / "spark-submit"
    record = tmp_path / "argv"
    recorder.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {record}\n")
    recorder.chmod(recorder.stat().st_mode | stat.S_IEXEC)
    toolkit = tmp_path / "toolkit"  # the toolkit of this checkout, as an installed one would run
    toolkit.write_text(f"#!/bin/sh\nPYTHONPATH={CHECKOUT} exec {sys.executable} -m toolkit \"$@\"\n")
    toolkit.chmod(toolkit.stat().st_mode | stat.S_IEXEC)
    _, out, _ = run(capsys, "schedule", "--repo", str(repo), "--cluster", "backup", "--spark-submit", str(recorder),
                    "--toolkit", str(toolkit), "--submit-args", "--master 'local[2]' --conf a=50%",
                    "--log-dir", str(tmp_path / "logs"))
    environment = dict(line.split("=", 1) for line in out.splitlines() if re.match(r"^[A-Z_]+=", line))
    [line] = [line for line in blocks(out)["UTC"] if "replication.py" in line]  # every minute from 02:30Z
    command = line.split(" ", 5)[5].replace("\\%", "%")
    before = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    result = subprocess.run(["/bin/sh", "-c", command], env={**os.environ, **environment}, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    argv = record.read_text().splitlines()
    assert argv[:5] == ["--master", "local[2]", "--conf", "a=50%",
                        str(Path(environment["ENTRYPOINTS"]) / "replication.py")]
    assert argv[5:13] == ["--repo", str(repo.resolve()), "--feed", "minutes", "--source", "main", "--target",
                          "backup"]
    assert argv[13] == "--time"
    assert datetime.strptime(argv[14], "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc) in (
        before, before + timedelta(minutes=1))
    assert (tmp_path / "logs").is_dir()  # the line's log folder, made by the line
