"""`entrypoints/ledger_tables.py --dry-run` as plain Python with no Java to be found: it prints the statements and
starts no Spark, and a database property that is no name is one sentence, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.unit.ledger.ledger_support import load_clusters
from toolkit.actions.ledger_tables.tables import statements

PROJECT = Path(__file__).resolve().parents[3]


def cluster_text(root: Path, properties: str) -> str:
    return (f'kind: cluster\nname: primary\ninterfaces:\n  write: {{endpoint: "file://{root}", version: "3.4"}}\n'
            f"locations: {{working: /w}}\n{properties}")


def run_entry(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The entrypoint as plain Python, with no java on PATH and a JAVA_HOME that is none: no JVM could start."""
    return subprocess.run([sys.executable, str(PROJECT / "entrypoints" / "ledger_tables.py"), "--repo", str(repo),
                           "--cluster", "primary", *args], capture_output=True, text=True, timeout=60,
                          env={"PATH": "", "JAVA_HOME": "/nonexistent", "PYTHONPATH": str(PROJECT)})


def test_a_dry_run_prints_the_statements_and_starts_no_spark(tmp_path: Path) -> None:
    load_clusters(tmp_path / "repo", {"primary": cluster_text(tmp_path, "properties: {ledger.database: ops}")})
    done = run_entry(tmp_path / "repo", "--dry-run")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "CREATE DATABASE IF NOT EXISTS `ops`;"
    assert lines[1:-1] == [f"{each.sql};" for each in statements("ops", f"file://{tmp_path}/w/ledger")]
    assert json.loads(lines[-1])["status"] == "DRY_RUN"


def test_a_database_property_that_is_no_name_is_exit_2_in_one_sentence(tmp_path: Path) -> None:
    load_clusters(tmp_path / "repo", {"primary": cluster_text(tmp_path, 'properties: {ledger.database: "a b"}')})
    done = run_entry(tmp_path / "repo", "--dry-run")
    assert done.returncode == 2
    assert done.stderr.strip() == ("ledger_tables: The property ledger.database of cluster 'primary' is 'a b', which "
                                   "is not a database name: use letters, digits and '_'.")
