"""`config_repo_template/demo/trigger_repo.py`, the repo of `make demo`'s data-aware triggering step: it is
written by the script as `make demo` calls it, lints clean, empties its cluster root, and the demo's story holds
in a dry-run sweep (the hourly summaries whose clicks window is published start, the others wait and say for
what; the batch consumer starts once summaries are published)."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from toolkit.authoring.lint.runner import lint_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.orchestration.triggers.launch import Launcher
from toolkit.orchestration.triggers.sweep import run_sweep

SCRIPT = Path(__file__).resolve().parents[3] / "config_repo_template" / "demo" / "trigger_repo.py"
FIRST = datetime(2025, 12, 31, 23, tzinfo=timezone.utc)  # the demo publishes 23:00 to 02:00


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, Path]:
    repo, root = tmp_path / "trigger-repo", tmp_path / "trigger-primary"
    (root / "feed-toolkit" / "working").mkdir(parents=True)
    (root / "feed-toolkit" / "working" / "left-over").write_text("from an earlier demo")
    done = subprocess.run([sys.executable, str(SCRIPT), "--to", str(repo), "--root", str(root)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {repo}: primary at file://{root} (emptied)")
    return repo, root


def test_the_repo_lints_clean_and_its_cluster_root_starts_empty(written: tuple[Path, Path]) -> None:
    repo, root = written
    report = lint_repo(repo)
    assert report.problems == ()
    assert list(root.iterdir()) == []
    config = ConfigRepo.load(repo)
    cluster = config.cluster("primary")
    assert cluster.properties["trigger.submit-args"] == "--master local[1] --conf spark.ui.enabled=false"
    summary, counts = config.process("hourly-clicks-summary"), config.process("summary-row-counts")
    assert summary.is_data_triggered and not summary.is_batch_consumer
    assert counts.is_batch_consumer and [item.feed for item in counts.inputs] == ["clicks-hourly-summary"]
    assert [item.feed for item in counts.outputs] == ["summary-row-counts"]


def test_the_demo_story_in_a_dry_run_sweep(written: tuple[Path, Path], tmp_path: Path) -> None:
    repo, root = written
    config = ConfigRepo.load(repo)
    ledger = Ledger.of(LocalFileSystem(), config.cluster("primary"))
    launcher = Launcher(str(repo), "primary", [], tmp_path / "logs", "spark-submit")
    for hour in range(4):
        t = FIRST + timedelta(hours=hour)
        ledger.record_publication(PublicationFacts("clicks", "primary", t, producer="external", run_id="demo",
                                                   location=f"file://{root}/data/clicks/{t:%Y/%m/%d/%H}",
                                                   fingerprint=None))
    report = run_sweep(config, "primary", ledger, launcher, dry_run=True)
    assert [run.label for run in report.started] == ["hourly-clicks-summary 2026-01-01T01:00Z",
                                                     "hourly-clicks-summary 2026-01-01T02:00Z"]
    assert report.waiting == [
        "hourly-clicks-summary 2026-01-01T00:00Z: waiting for clicks@2025-12-31T22:00Z",
        "hourly-clicks-summary 2026-01-01T03:00Z: waiting for clicks@2026-01-01T03:00Z",
        "hourly-clicks-summary 2026-01-01T04:00Z: waiting for clicks@2026-01-01T03:00Z, clicks@2026-01-01T04:00Z",
        "summary-row-counts: nothing pending"]
    for hour in (1, 2):
        t = FIRST + timedelta(hours=hour)
        ledger.record_publication(PublicationFacts("clicks-hourly-summary", "primary", t,
                                                   producer="hourly-clicks-summary", run_id="demo",
                                                   location=f"file://{root}/data/clicks-hourly-summary/"
                                  f"{t:%Y/%m/%d/%H}", fingerprint=None))
    report = run_sweep(config, "primary", ledger, launcher, dry_run=True)
    assert "summary-row-counts batch" in [run.label for run in report.started]
    assert launcher.started == []  # a dry run starts nothing
