"""User errors through the real `python -m toolkit` process: one line on stderr, the documented exit
code, never a traceback (in-process tests cannot see what escapes to the interpreter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TEMPLATE = str(Path(__file__).resolve().parents[3] / "config_repo_template")

CASES = [
    (["el", "eval", "now(0)"], 2),
    (["el", "eval", "(" * 3000 + "1" + ")" * 3000], 2),
    (["el", "eval", "now(0,0)", "--time", "2026-02-30T00:00Z"], 2),
    (["el", "eval", "now(0,0)", "--timezone", "Mars/Olympus"], 2),
    (["el", "path", "/d/${YEAR}", "--time", "9999-12-31T23:00Z", "--timezone", "Asia/Tokyo"], 2),
    (["el", "next", "--start", "9999-12-31T00:00Z", "--frequency", "hours(1)", "--time", "9999-12-31T23:30Z"], 0),
    (["el", "frequency", "weekly"], 2),
    (["instances", "--repo", TEMPLATE, "--process", "nope", "--time", "2026-11-21T10:00Z"], 2),
    (["instances", "--repo", "/nonexistent", "--process", "p"], 2),
    (["lint", "/nonexistent"], 2),
    (["schema", "--write", "/proc/nope"], 2),
    (["deps", "nope", "--repo", TEMPLATE], 2),
    (["graph", "--repo", TEMPLATE, "--cluster", "mars", "--format", "mermaid"], 2),
    (["graph", "--repo", TEMPLATE, "--out", "/nonexistent/pipelines.html"], 2),
    (["report", "--repo", TEMPLATE, "--cluster", "mars", "--out", "/tmp/never-written.html"], 2),
    (["report", "--repo", TEMPLATE, "--cluster", "primary", "--from", "2026-11-21T10:00Z", "--to", "2026-11-20T10:00Z",
      "--out", "/tmp/never-written.html"], 2),
    (["report", "--repo", TEMPLATE, "--cluster", "primary", "--out", "/nonexistent/status.html"], 2),
    (["convert-falcon", "/nonexistent.xml", "--out", "/tmp/never-written"], 2),
    (["status", "--repo", TEMPLATE, "--process", "nope", "--cluster", "primary"], 2),
    (["status", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--cluster", "primary", "--from",
      "2026-11-21T10:00Z", "--to", "2026-11-20T10:00Z"], 2),
    (["status", "--repo", TEMPLATE, "--cluster", "primary", "--tags", "owner"], 2),
    (["status", "--repo", TEMPLATE, "--cluster", "primary", "--state", "SUBMITTED"], 2),
    (["entity-status", "nope", "--repo", TEMPLATE], 2),
    (["triage", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--time", "2026-11-21T10:30Z"], 2),
    (["logs", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--time", "2026-11-21T10:30Z"], 2),
    (["--version"], 0),
    (["kill", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--time", "2026-11-21T10:30Z"], 2),
    (["summary", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--cluster", "mars"], 2),
    (["running", "--repo", TEMPLATE, "--cluster", "primary", "--now", "yesterday"], 2),
    (["safemode", "maybe", "--repo", TEMPLATE, "--cluster", "primary"], 2),
    (["suspend", "nope", "--repo", TEMPLATE, "--cluster", "primary"], 2),
    (["suspend", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--time", "2026-11-21T10:30Z"], 2),
    (["resume", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--from", "2026-11-21T10:00Z"], 2),
    (["rerun", "--repo", TEMPLATE, "--process", "hourly-clicks-summary", "--cluster", "primary"], 2),
    (["backfill", "--repo", TEMPLATE, "--cluster", "primary", "--from", "2026-11-21T10:00Z", "--to",
      "2026-11-21T11:00Z"], 2),
    (["backfill", "--repo", TEMPLATE, "--cluster", "primary", "--downstream-of", "clicks", "--from",
      "2026-11-21T12:00Z", "--to", "2026-11-21T11:00Z", "--dry-run"], 2),
    (["backfill", "--repo", TEMPLATE, "--cluster", "primary", "--process", "top-pages", "--from",
      "2026-11-21T10:00Z", "--to", "2026-11-21T11:00Z", "--parallel", "0"], 2),
    (["backfill", "--repo", TEMPLATE, "--cluster", "primary", "--feed", "clicks-hourly-summary", "--from",
      "2026-11-21T10:00Z", "--to", "2026-11-21T11:00Z"], 2),
    (["lineage", "--repo", TEMPLATE, "--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:30Z"], 2),
    (["lineage", "--repo", TEMPLATE, "--feed", "clicks", "--time", "2026-11-21T10:00Z"], 2),
    (["schedule", "--repo", TEMPLATE, "--cluster", "mars"], 2),
    (["schedule", "--repo", TEMPLATE, "--cluster", "primary", "--format", "airflow"], 2),
    (["schedule", "--repo", TEMPLATE, "--cluster", "primary", "--submit-args", "--conf 'a=b"], 2),
    (["call", "--every", "hours(1)", "--from", "2026-13-01T00:00Z", "--", "true"], 2),
    (["call", "--every", "hours(1)", "--from", "2026-01-01T00:00Z", "--time", "2026-01-01T00:00Z", "--",
      "/nonexistent/spark-submit"], 2),
]


@pytest.mark.parametrize(("argv", "exit_code"), CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_user_error_is_one_line_and_an_exit_code(argv: list[str], exit_code: int) -> None:
    result = subprocess.run([sys.executable, "-m", "toolkit", *argv], capture_output=True, text=True, timeout=60)
    assert result.returncode == exit_code, result.stderr
    assert "Traceback" not in result.stderr
    if exit_code:
        assert result.stderr.startswith("toolkit: ") and len(result.stderr.strip().splitlines()) == 1, result.stderr
