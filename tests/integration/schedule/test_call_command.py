"""`toolkit call`, run as cron runs it (a process of its own, since it replaces itself with the command): the time
it appends, the firings it skips (exit 4, a JSON line saying why), and the command's own exit code kept."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[3]


def toolkit_call(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolkit", "call", *argv], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(CHECKOUT)})


def recorder(tmp_path: Path, exit_code: int = 0) -> tuple[Path, Path]:
    """A command that writes its arguments, one per line, and exits with `exit_code`."""
    script, record = tmp_path / "command", tmp_path / "argv"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {record}\nexit {exit_code}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, record


def test_a_given_instance_runs_with_its_time_and_keeps_the_exit_code(tmp_path: Path) -> None:
    script, record = recorder(tmp_path, exit_code=3)
    result = toolkit_call("--every", "minutes(7)", "--from", "2026-01-01T00:03Z", "--time", "2026-01-01T00:17Z",
                          "--", str(script), "--process", "p")
    assert result.returncode == 3
    assert record.read_text().splitlines() == ["--process", "p", "--time", "2026-01-01T00:17Z"]


def test_a_time_between_instances_is_skipped_and_says_why(tmp_path: Path) -> None:
    script, record = recorder(tmp_path)
    result = toolkit_call("--every", "months(5)", "--from", "2026-01-15T06:00Z", "--time", "2026-02-15T06:00Z",
                          "--", str(script))
    assert result.returncode == 4 and not record.exists()
    status = json.loads(result.stdout.splitlines()[-1])
    assert status["status"] == "SKIPPED" and status["time"] == "2026-02-15T06:00Z"
    assert status["reason"] == ("2026-02-15T06:00Z is not an instance every months(5) from 2026-01-15T06:00Z (the "
                                "nearest: 2026-01-15T06:00Z, 2026-06-15T06:00Z): skipped")


def test_a_firing_stands_for_the_instance_at_or_before_it(tmp_path: Path) -> None:
    script, record = recorder(tmp_path)
    before = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    result = toolkit_call("--every", "minutes(1)", "--from", "2026-01-01T00:00Z", "--time-option", "--now", "--",
                          str(script))
    assert result.returncode == 0, result.stderr
    option, value = record.read_text().splitlines()
    assert option == "--now"
    assert datetime.strptime(value, "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc) in (
        before, before + timedelta(minutes=1))


def test_a_firing_far_from_every_instance_is_skipped(tmp_path: Path) -> None:
    script, record = recorder(tmp_path)
    # every 5 hours from 01:00Z, cron fires hourly: at most one firing in five stands for an instance; anchor
    # the cadence so that no instance lies in the last hour
    now = datetime.now(timezone.utc)
    anchor = (now - timedelta(hours=2)).replace(second=0, microsecond=0)
    result = toolkit_call("--every", "hours(5)", "--from", anchor.strftime("%Y-%m-%dT%H:%MZ"), "--period", "60",
                          "--", str(script))
    assert result.returncode == 4 and not record.exists()
    assert "cron fires more often than the cadence" in result.stdout


def test_bad_calls_are_exit_2_with_a_sentence(tmp_path: Path) -> None:
    result = toolkit_call("--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--timezone", "Mars/Olympus",
                          "--", "true")
    assert result.returncode == 2 and "Mars/Olympus" in result.stderr and "Traceback" not in result.stderr
    result = toolkit_call("--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--time", "2026-01-01T03:00Z",
                          "--", str(tmp_path / "no-such-program"))
    assert result.returncode == 2 and "Cannot run" in result.stderr and "Traceback" not in result.stderr
    result = toolkit_call("--every", "weekly", "--from", "2026-01-01T00:00Z", "--", "true")
    assert result.returncode == 2 and "weekly" in result.stderr


def test_a_lag_passes_the_instance_periods_before_the_firings_in_the_cadences_zone(tmp_path: Path) -> None:
    script, record = recorder(tmp_path)
    result = toolkit_call("--every", "days(1)", "--from", "2026-01-02T00:00Z", "--lag", "1", "--time",
                          "2026-06-02T00:00Z", "--", str(script), "--feed", "top-pages")
    assert result.returncode == 0, result.stderr
    assert record.read_text().splitlines() == ["--feed", "top-pages", "--time", "2026-06-01T00:00Z"]
    # a Paris day across the change to summer time is 23 hours: the day before, as the zone counts it
    result = toolkit_call("--every", "days(1)", "--from", "2026-01-01T23:00Z", "--timezone", "Europe/Paris",
                          "--lag", "1", "--time", "2026-03-29T22:00Z", "--", str(script))
    assert result.returncode == 0, result.stderr
    assert record.read_text().splitlines() == ["--time", "2026-03-28T23:00Z"]
