"""Retention of file feeds on the local file system (pure Python): what is evicted, what survives,
the report, dry runs, validity, refused templates, and a rerun after an interrupted run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, plant_decoys, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext

FS = LocalFileSystem()


@pytest.fixture
def setup(tmp_path: Path) -> tuple[ConfigRepo, Path]:
    repo, root = make_repo(tmp_path)
    return ConfigRepo.load(repo), root


def test_evicts_exactly_the_instances_before_the_cut_off(setup: tuple[ConfigRepo, Path]) -> None:
    repo, root = setup
    # clicks on primary keeps days(90): at 2026-04-01T10:00Z the cut-off is 2026-01-01T10:00Z.
    hourly_instances(root, utc(2025, 12, 30, 0), 24 * 4)  # 2025-12-30 00:00 .. 2026-01-02 23:00
    decoys = plant_decoys(root)
    result = run_retention(repo, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS))
    assert result.status == "SUCCEEDED"
    assert result.cut_off == utc(2026, 1, 1, 10)
    times = [item.time for item in result.evicted]
    assert len(times) == 24 * 2 + 10 and times[0] == "2025-12-30T00:00Z" and times[-1] == "2026-01-01T09:00Z"
    left = sorted(p.name for p in (root / "data/clicks/2026/01/01").iterdir())
    assert left == [f"{h:02d}" for h in range(10, 24)]  # 10:00 is exactly at the cut-off: kept
    assert not (root / "data/clicks/2025").exists()  # a year wholly expired, and nothing else in it
    assert all(decoy.exists() for decoy in decoys)
    assert result.bytes_freed == 58 * (27 * 3) and all(item.bytes == 81 for item in result.evicted)


def test_parents_left_empty_are_removed_but_not_the_base(setup: tuple[ConfigRepo, Path]) -> None:
    repo, root = setup
    hourly_instances(root, utc(2025, 6, 1, 0), 48)
    result = run_retention(repo, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS))
    assert len(result.evicted) == 48
    assert (root / "data/clicks").is_dir() and list((root / "data/clicks").iterdir()) == []
    assert result.directories_removed == 1 + 1 + 2  # 2025, 2025/06, the two day folders
    assert not (root / "data/clicks/2025").exists()


def test_directories_removed_counts_every_folder_gone_but_the_instances(setup: tuple[ConfigRepo, Path]) -> None:
    repo, root = setup
    hourly_instances(root, utc(2024, 12, 30, 0), 24 * 3)  # 2024 and 2025 wholly expired: one delete each
    hourly_instances(root, utc(2026, 1, 1, 0), 24)  # 00:00 .. 09:00 expired one by one, the rest kept
    before = {path for path in root.rglob("*") if path.is_dir()}
    result = run_retention(repo, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS))
    gone = before - {path for path in root.rglob("*") if path.is_dir()}
    assert len(result.evicted) == 24 * 3 + 10
    assert result.directories_removed == len(gone) - len(result.evicted) == 2 + 5  # 2024/12/30 .. 2025/01/01


def test_report_is_written_under_the_working_location(setup: tuple[ConfigRepo, Path]) -> None:
    repo, root = setup
    hourly_instances(root, utc(2025, 12, 31, 22), 2)
    result = run_retention(repo, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS, run_id="r1"))
    report = json.loads((root / "feed-toolkit/working/retention/clicks/20260401T1000Z.json").read_text())
    assert result.report.endswith("/feed-toolkit/working/retention/clicks/20260401T1000Z.json")
    assert report["instances_evicted"] == 2 and report["run_id"] == "r1" and report["cut_off"] == "2026-01-01T10:00Z"
    assert [item["path"] for item in report["evicted"]] == [
        f"file://{root}/data/clicks/2025/12/31/22", f"file://{root}/data/clicks/2025/12/31/23"]


def test_dry_run_touches_nothing(setup: tuple[ConfigRepo, Path]) -> None:
    repo, root = setup
    hourly_instances(root, utc(2025, 12, 31, 0), 24)
    before = tree(root)
    result = run_retention(repo, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS), dry_run=True)
    assert result.status == "DRY_RUN" and len(result.evicted) == 24 and result.bytes_freed == 24 * 81
    assert tree(root) == before


def test_after_the_validity_end_it_is_skipped(setup: tuple[ConfigRepo, Path]) -> None:
    repo, _ = setup
    result = run_retention(repo, "clicks", "primary", utc(2099, 12, 31, 0), RunContext(FS))
    assert result.status == "SKIPPED" and "after the validity of feed 'clicks'" in result.reason


def test_a_rerun_after_an_interrupted_run_finishes_with_the_same_tree(tmp_path: Path) -> None:
    trees = []
    for interrupted_after in (None, 3, 17):
        repo_dir, root = make_repo(tmp_path / f"run-{interrupted_after}")
        repo = ConfigRepo.load(repo_dir)
        hourly_instances(root, utc(2025, 12, 30, 0), 24 * 3)
        plant_decoys(root)
        if interrupted_after is not None:  # an earlier run deleted some instances one by one, then died
            for folder in sorted((root / "data/clicks/2025/12/30").iterdir())[:interrupted_after]:
                FS.delete(f"file://{folder}", recursive=True)
        run_retention(repo, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS))
        trees.append(tree(root) - {p for p in tree(root) if p.startswith("feed-toolkit")})
    assert trees[0] == trees[1] == trees[2]


@pytest.mark.parametrize(("path", "message"), [
    ("/data/clicks/${MONTH}/${DAY}", "has date variables but no ${YEAR}"),
    ("/${YEAR}/${MONTH}/${DAY}/${HOUR}", "starts with a variable"),
    ("/data/../clicks/${YEAR}/${MONTH}", "contains '..'"),
    ("/data/./clicks/${YEAR}/${MONTH}", "contains '..' or '.' as a segment"),
])
def test_unsafe_templates_are_refused(tmp_path: Path, path: str, message: str) -> None:
    repo_dir, _ = make_repo(tmp_path)
    feed = repo_dir / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("  data: /data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}", f"  data: {path}"))
    with pytest.raises(UsageError, match=message.replace("$", r"\$").replace("{", r"\{").replace(".", r"\.")):
        run_retention(ConfigRepo.load(repo_dir), "clicks", "primary", utc(2026, 4, 1, 10), RunContext(FS))
