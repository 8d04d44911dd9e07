"""entrypoints/compact.py as plain Python: a time that is no instance of the feed is one sentence, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.unit.ingest.ingest_repo import make_repo

PROJECT = Path(__file__).resolve().parents[3]


def test_the_entrypoint_refuses_a_time_that_is_no_instance_in_one_sentence(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    done = subprocess.run([sys.executable, str(PROJECT / "entrypoints/compact.py"), "--repo", str(repo.root),
                           "--feed", "events", "--cluster", "primary", "--time", "2026-01-01T10:30Z"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(PROJECT)})  # this checkout's toolkit
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "compaction: 2026-01-01T10:30Z is not an instance of feed 'events' on cluster 'primary'; the nearest "
        "instances are before 2026-01-01T10:00Z, after 2026-01-01T11:00Z."]
    status = json.loads(done.stdout.strip().splitlines()[-1])
    assert (status["status"], status["action"], status["time"]) == ("INVALID", "compaction", "2026-01-01T10:30Z")
