"""`toolkit retain`: the retention entrypoint's own call in this process, with no JVM (issue 36): the same plan,
lease, ledger record and status line as `run_retention`, refused where retention needs Spark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

CALL = ("--feed", "clicks", "--cluster", "primary", "--time", "2026-03-31T22:00Z")


def retain(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> tuple[int, dict[str, object], str]:
    code = main(["retain", "--repo", str(repo), *argv])
    out, err = capsys.readouterr()
    [line] = out.splitlines()[-1:]
    return code, json.loads(line), err


def test_it_evicts_what_the_runner_evicts_and_says_so_in_the_entrypoints_status_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    by_command, command_root = make_repo(tmp_path / "a")
    by_runner, runner_root = make_repo(tmp_path / "b")
    for root in (command_root, runner_root):
        hourly_instances(root, utc(2025, 12, 31, 20), 8)  # 20:00 .. 03:00 the next day
    code, status, err = retain(capsys, by_command, *CALL, "--status-file", str(tmp_path / "status.json"))
    reference = run_retention(ConfigRepo.load(by_runner), "clicks", "primary", utc(2026, 3, 31, 22),
                              RunContext(LocalFileSystem()))
    assert (code, err) == (0, "")
    assert status == json.loads((tmp_path / "status.json").read_text())
    assert (status["status"], status["action"], status["entity"], status["cluster"], status["instances_evicted"]) == \
        ("SUCCEEDED", "retention", "clicks", "primary", len(reference.evicted))
    assert len(reference.evicted) == 2
    assert sorted(p.name for p in (command_root / "data/clicks/2025/12/31").iterdir()) == ["22", "23"]
    data = {p for p in tree(command_root) if p.startswith("data/")}
    assert data == {p for p in tree(runner_root) if p.startswith("data/")}
    report = json.loads((command_root / "feed-toolkit/working/retention/clicks/20260331T2200Z.json").read_text())
    assert [item["time"] for item in report["evicted"]] == ["2025-12-31T20:00Z", "2025-12-31T21:00Z"]


def test_a_dry_run_lists_and_touches_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 20), 8)
    before = tree(root)
    code = main(["retain", "--repo", str(repo), *CALL, "--dry-run"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and json.loads(out[-1])["status"] == "DRY_RUN"
    assert [line.split()[:2] for line in out[:-1]] == [["would", "evict"]] * 2
    assert tree(root) == before


def test_a_second_caller_is_told_who_holds_the_lease(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 20), 8)
    lock = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary")).retention_lock("clicks")
    assert lock.try_acquire("other-run").taken
    before = tree(root)
    code, status, err = retain(capsys, repo, *CALL)
    assert (code, status["status"]) == (5, "BLOCKED")
    assert "is being run by run other-run on " in err and tree(root) == before


def test_a_table_feed_is_refused_naming_the_entrypoint_and_nothing_is_touched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    before = tree(root)
    code, status, err = retain(capsys, repo, "--feed", "clicks-daily-table", "--cluster", "primary", "--time",
                               "2026-03-31T22:00Z")
    assert (code, status["status"]) == (2, "INVALID")
    assert err == ("retention: The feed 'clicks-daily-table' is a catalog table on cluster 'primary': its "
                   "retention needs Spark; run spark-submit entrypoints/retention.py with the same arguments.\n")
    assert tree(root) == before


def test_help_is_the_entrypoints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["retain", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: toolkit retain ") and "--dry-run" in out and "--lease SECONDS" in out
