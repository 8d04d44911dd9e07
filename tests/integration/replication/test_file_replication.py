"""Replication of a feed without a quality gate, in a fresh interpreter: it loads neither the gate nor Great
Expectations."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import instance, make_repo, utc

FILES = {"part-00000.json": b'{"page": "/"}\n' * 100, "part-00001.json": b'{"page": "/cart"}\n' * 7,
         "nested/part-00002.json": b"x"}


T = utc(2026, 11, 21, 10)


@pytest.fixture
def clusters(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(repo, primary root, backup root) of the template with temporary roots."""
    repo, primary = make_repo(tmp_path)
    backup = tmp_path / "backup"
    backup.mkdir()
    return repo, primary, backup


def test_a_feed_without_a_gate_replicates_without_the_gate_or_great_expectations(clusters) -> None:
    """Only a feed that declares `quality` loads toolkit/services/quality/gate.py (and, through it, Great
    Expectations)."""
    import subprocess
    import sys

    repo, primary, _ = clusters
    instance(primary, "data/clicks", T, FILES)
    code = ("import sys; from tests.unit.replication.test_file_replication import replicate; from pathlib import Path; "
            f"print(replicate(Path({str(repo)!r})).status, sorted(m for m in sys.modules if m.startswith("
            "('great_expectations', 'toolkit.services.quality.gate', 'toolkit.services.quality.expectations', "
            "'pyspark'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[3])
    assert done.stdout.strip() == "SUCCEEDED []"
