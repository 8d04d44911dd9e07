"""The commands Spark has nothing to do in start no JVM (issue 36, point 1): each runs in a fresh interpreter on a
file:// cluster, does its work, and ends without pyspark or py4j imported and without a java process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc

RUN = """
import json, sys
from toolkit.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "jvm": sorted(m for m in ("pyspark", "py4j") if m in sys.modules)}))
"""

# Each command's arguments after --repo, and the exit code its work ends with here (docs/exit-codes.md).
COMMANDS = {
    "retain": (("retain", "--feed", "clicks", "--cluster", "primary", "--time", "2026-03-31T22:00Z"), 0),
    "retain --all": (("retain", "--cluster", "backup", "--all", "--dry-run", "--time", "2026-03-31T22:00Z"), 0),
    "publish": (("publish", "--feed", "clicks", "--cluster", "primary", "--time", "2026-03-31T21:00Z"), 0),
    "trigger": (("trigger", "--cluster", "primary"), 0),
    "backfill --dry-run": (("backfill", "--cluster", "primary", "--downstream-of", "clicks", "--from",
                            "2026-03-31T18:00Z", "--to", "2026-03-31T21:00Z", "--dry-run"), 0),
    "sla": (("sla", "--cluster", "primary", "--now", "2026-03-31T22:00Z"), 1),  # 1: instances missed their SLA
    "ledger-rollup": (("ledger-rollup", "--cluster", "primary", "--now", "2026-03-31T22:00Z"), 0),
    "schedule": (("schedule", "--cluster", "primary"), 0),
    "report": (("report", "--cluster", "primary", "--now", "2026-03-31T22:00Z", "--out", "status.html"), 0),
    "status": (("status", "--cluster", "primary", "--process", "hourly-clicks-summary"), 0),
    "status of the entities": (("status", "--cluster", "primary", "--tags", "owner=web-analytics"), 0),
    "entity-status": (("entity-status", "clicks"), 0),
    "triage": (("triage", "--process", "hourly-clicks-summary", "--time", "2026-03-31T21:00Z"), 0),
    "kill": (("kill", "--process", "hourly-clicks-summary", "--time", "2026-03-31T21:00Z"), 4),  # not running
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_command_does_its_work_without_a_jvm(tmp_path: Path, command: str) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2026, 3, 31, 18), 4)
    if command == "retain --all":  # backup keeps a table feed: `toolkit retain --all` refuses it, naming the way
        (repo / "feeds" / "visits.yaml").unlink()
    (name, *arguments), code = COMMANDS[command]
    result = subprocess.run([sys.executable, "-c", RUN, name, "--repo", str(repo), *arguments],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert said == {"code": code, "jvm": []}, result.stdout[-2000:] + result.stderr[-2000:]
