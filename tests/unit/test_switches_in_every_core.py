"""Safemode and suspension are checked in the core of every action, not only in its spark-submit entry: a caller
of `run_retention`, `run_replication`, the Hive export and import cores or the process runner directly (a test,
another tool, a future scheduler) is stopped before anything is touched (safemode: BlockedError, exit 5; a
suspended feed: SkippedError, exit 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.replication.test_file_replication import T, contents, instance
from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.actions.replication.hive.import_plan import ImportPlan
from toolkit.actions.replication.hive.runner import HIVE_EXPORT, plan_hive_import, run_hive_export, run_hive_import
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, SkippedError
from toolkit.services.runtime.lifecycle import FeedCall
from toolkit.services.runtime.run_context import RunContext

SINCE = "2026-11-21T10:00:00Z"


def control(repo: ConfigRepo, cluster: str) -> Control:
    return Control(LocalFileSystem(), LedgerLayout.of(repo.cluster(cluster)))


@pytest.mark.parametrize("switch", ["safemode", "suspended"])
def test_retention_called_directly_touches_nothing_while_switched_off(tmp_path: Path, switch: str) -> None:
    repo_path, primary = make_repo(tmp_path)
    old = hourly_instances(primary, utc(2025, 1, 1, 0), 3)
    repo = ConfigRepo.load(repo_path)
    if switch == "safemode":
        control(repo, "primary").set_safemode(True, SINCE, "test")
    else:
        control(repo, "primary").set_suspended("feed", "clicks", True, SINCE, "test")
    with pytest.raises(BlockedError if switch == "safemode" else SkippedError) as raised:
        run_retention(repo, "clicks", "primary", utc(2026, 11, 21, 10), RunContext(LocalFileSystem()))
    assert ("safemode" if switch == "safemode" else "suspended") in str(raised.value)
    assert all(folder.is_dir() for folder in old)  # nothing evicted


@pytest.mark.parametrize("where", ["target", "source"])
def test_replication_called_directly_copies_nothing_in_safemode(tmp_path: Path, where: str) -> None:
    repo_path, primary = make_repo(tmp_path)
    instance(primary, "data/clicks", T, {"part-00000.json": b"x" * 10})
    repo = ConfigRepo.load(repo_path)
    control(repo, "backup" if where == "target" else "primary").set_safemode(True, SINCE, "test")
    with pytest.raises(BlockedError) as raised:
        run_replication(repo, "clicks", "backup", ReplicationRequest(T, T), RunContext(LocalFileSystem(), run_id="r1"))
    assert "safemode" in str(raised.value)
    assert not (tmp_path / "backup/replica").exists()
    assert contents(primary / "data/clicks/2026/11/21/10")["part-00000.json"] == b"x" * 10


@pytest.mark.parametrize("switch", ["safemode", "suspended"])
def test_hive_export_called_directly_reads_and_writes_nothing_while_switched_off(tmp_path: Path, switch: str) -> None:
    # No Spark and no catalog are given: the core must stop before it would use them.
    repo_path, _ = make_repo(tmp_path)
    repo = ConfigRepo.load(repo_path)
    switch_off(repo, "visits", switch)
    destination = tmp_path / "export"
    with pytest.raises(BlockedError if switch == "safemode" else SkippedError) as raised:
        run_hive_export(None, FeedCall.of(HIVE_EXPORT, repo, repo.feed("visits"), repo.cluster("primary"),  # type: ignore[arg-type]
                                          utc(2026, 11, 21)), destination.as_uri(), RunContext(LocalFileSystem()))
    assert ("safemode" if switch == "safemode" else "suspended") in str(raised.value)
    assert not destination.exists()


@pytest.mark.parametrize("switch", ["safemode", "suspended"])
def test_hive_import_called_directly_touches_nothing_while_switched_off(tmp_path: Path, switch: str) -> None:
    repo_path, _ = make_repo(tmp_path)
    repo = ConfigRepo.load(repo_path)
    feed, cluster = repo.feed("visits"), repo.cluster("primary")
    export = tmp_path / "export"
    export.mkdir()
    (export / "part-00000.parquet").write_bytes(b"rows")
    plan = ImportPlan(export.as_uri(), None, utc(2026, 11, 21), "web", "visits", {"ds": "2026-11-21"})  # type: ignore[arg-type]
    switch_off(repo, "visits", switch)
    for call in (lambda: plan_hive_import(LocalFileSystem(), feed, cluster, export.as_uri(), None),
                 lambda: run_hive_import(None, repo, feed, cluster, plan, RunContext(LocalFileSystem(), "r1"))):  # type: ignore[arg-type]
        with pytest.raises(BlockedError if switch == "safemode" else SkippedError):
            call()
    assert [p.name for p in export.iterdir()] == ["part-00000.parquet"]


def switch_off(repo: ConfigRepo, feed: str, switch: str) -> None:
    if switch == "safemode":
        control(repo, "primary").set_safemode(True, SINCE, "test")
    else:
        control(repo, "primary").set_suspended("feed", feed, True, SINCE, "test")
