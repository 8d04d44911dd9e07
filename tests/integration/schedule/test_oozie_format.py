"""The exit-code wrapper of `toolkit schedule --format oozie`, run with sh: it maps the toolkit's exit codes to
Oozie's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.unit.schedule.oozie_files import schedule

TEMPLATE = Path(__file__).resolve().parents[3] / "config_repo_template"
NOMINAL_TIME = "${coord:formatTime(coord:nominalTime(), \"yyyy-MM-dd'T'HH:mm'Z'\")}"
ODD_PROCESSES = {  # name: (frequency, zone, validity start, validity end)
    "every-seven-minutes": ("minutes(7)", "UTC", "2026-01-01T00:03Z", "2027-01-01T00:00Z"),
    "every-five-hours": ("hours(5)", "Europe/Paris", "2026-03-01T01:00Z", "2027-03-01T01:00Z"),
    "every-two-months": ("months(2)", "Europe/Paris", "2026-01-15T09:30Z", "2030-01-15T09:30Z"),
}


@pytest.mark.parametrize(("code", "wrapper_exit"), [(0, 0), (4, 0), (1, 0), (2, 0), (127, 0), (3, 3), (5, 5)])
def test_the_wrapper_maps_the_exit_codes(tmp_path: Path, code: int, wrapper_exit: int) -> None:
    out = tmp_path / "oozie"
    assert schedule(TEMPLATE, out) == 0
    command = ["sh", str(out / "toolkit-oozie-call.sh"), "sh", "-c",
               f'echo \'{{"status": "X"}}\'; echo progress >&2; exit {code}']
    run = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    assert run.returncode == wrapper_exit
    assert run.stdout == f"exit={code}\n"  # capture-output reads Java properties: the command's output is moved
    assert run.stderr == '{"status": "X"}\nprogress\n'
