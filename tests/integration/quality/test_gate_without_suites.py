"""An output without a gate costs nothing: the gate reads no data and Great Expectations is never imported, in the
process runner, replication and quality_check's modules alike (checked in a fresh interpreter, since other tests of
this session import it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import sys
from datetime import datetime, timezone
import toolkit.actions.process_runner.runner, toolkit.actions.process_runner.batch_runner
import toolkit.actions.quality_check.quality_check_entry
from toolkit.services.quality.gate import QualityGate

def frame():
    raise AssertionError("the data was read")

assert QualityGate(".").check(None, datetime(2026, 1, 1, tzinfo=timezone.utc), (), "file:///x", frame) == []
print(sorted(name for name in sys.modules if name.split(".")[0] in ("great_expectations", "pandas")))
"""


def test_no_gate_reads_nothing_and_imports_no_great_expectations() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
