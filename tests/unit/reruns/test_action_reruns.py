"""`toolkit rerun --feed F --action A` (issue 71, item 3): a feed's replication, retention, database import and
export instances as their records in the ledger give them, a run that died holding its lease read as KILLED, and the
entrypoint call that reruns each; --continue where the action can resume. Records written through the ledger's and
the actions' own record types; the commands are printed (tests/integration/cli/test_rerun_actions.py runs them)."""

from __future__ import annotations

import shlex
from datetime import timedelta
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import replication_clusters, utc
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.database_transfers import ExportBook, ExportRecord, ImportBook, ImportRecord
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.replication_runs import ReplicationRecord, SourceCopy
from toolkit.core.ledger.retention_runs import RetentionRecord
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_record import record_path, write_record

T = utc(2026, 11, 21, 10)
WINDOW = ("--from", "2026-11-21T10:00Z", "--to", "2026-11-21T12:00Z")


def _ledger(repo: Path, cluster: str, clock: float | None = None) -> Ledger:
    on = ConfigRepo.load(repo).cluster(cluster)
    return Ledger.of(LocalFileSystem(), on, **({"clock": lambda: clock} if clock is not None else {}))


def _rerun(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> tuple[int, list[list[str]], str]:
    code = main(["rerun", "--repo", str(repo), *argv])
    out, err = capsys.readouterr()
    return code, [shlex.split(line) for line in out.splitlines()], err


def _after(words: list[str], entrypoint: str) -> list[str]:
    """The arguments after the entrypoint's `--repo R`."""
    index = next(k for k, word in enumerate(words) if word.endswith(f"entrypoints/{entrypoint}"))
    assert words[index + 1] == "--repo"
    return words[index + 3:]


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    conf, _, _ = replication_clusters(tmp_path)
    return conf


def test_replication_failed_and_killed_instances_are_copied_again_or_continued(
        capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    config = ConfigRepo.load(repo)
    backup = _ledger(repo, "backup")
    for t, status, reason in ((T, "SUCCEEDED", None), (T + timedelta(hours=1), "FAILED", "a copy failed: disk full")):
        write_record(backup.fs, record_path(config.cluster("backup"), "replication", "clicks", t), ReplicationRecord(
            "clicks", "backup", f"{t:%Y-%m-%dT%H:%MZ}", "r", status=status,
            sources=[SourceCopy("primary", status, reason)]))
    dead = _ledger(repo, "backup", clock=(T - timedelta(days=1)).timestamp())  # its lease ended long ago
    assert dead.replication_lock("clicks", T + timedelta(hours=2)).try_acquire("gone", LeaseDetails()).taken
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "replication", "--cluster", "backup",
                                 *WINDOW)
    assert code == 0, err
    assert [_after(words, "replication.py") for words in commands] == [
        ["--feed", "clicks", "--target", "backup", "--time", "2026-11-21T11:00Z", "--recopy"],
        ["--feed", "clicks", "--target", "backup", "--time", "2026-11-21T12:00Z", "--recopy"]]
    code, commands, _ = _rerun(capsys, repo, "--feed", "clicks", "--action", "replication", "--cluster", "backup",
                               *WINDOW, "--status", "SUCCEEDED,KILLED", "--continue")
    assert [_after(words, "replication.py")[5] for words in commands] == ["2026-11-21T10:00Z", "2026-11-21T12:00Z"]
    assert all("--recopy" not in words for words in commands)


def test_retention_runs_are_evaluated_again_and_cannot_continue(capsys: pytest.CaptureFixture[str],
                                                                repo: Path) -> None:
    config = ConfigRepo.load(repo)
    primary = _ledger(repo, "primary")
    write_record(primary.fs, record_path(config.cluster("primary"), "retention", "clicks", T),
                 RetentionRecord("clicks", "primary", "2026-11-21T10:00Z", "r"))
    dead = _ledger(repo, "primary", clock=(T - timedelta(days=1)).timestamp())
    assert dead.retention_lock("clicks").try_acquire("gone", LeaseDetails(time="2026-11-21T12:00Z")).taken
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "retention", "--cluster", "primary",
                                 *WINDOW, "--status", "SUCCEEDED,KILLED")
    assert code == 0, err
    assert [_after(words, "retention.py") for words in commands] == [
        ["--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T10:00Z"],
        ["--feed", "clicks", "--cluster", "primary", "--time", "2026-11-21T12:00Z"]]
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "retention", "--cluster", "primary",
                                 *WINDOW, "--continue")
    assert code == 2 and commands == []
    assert err.startswith("toolkit: The retention of a feed cannot --continue (every retention call first finishes")


@pytest.mark.parametrize(("action", "book", "record", "lock"), [
    ("import", ImportBook, ImportRecord, "database_import_lock"),
    ("export", ExportBook, ExportRecord, "database_export_lock")])
def test_database_transfers_rerun_with_force_and_a_dead_running_one_is_killed(
        capsys: pytest.CaptureFixture[str], repo: Path, action: str, book: type, record: type, lock: str) -> None:
    primary = _ledger(repo, "primary")
    feed = "shop-orders" if action == "import" else "top-pages"
    records = book(primary.fs, primary.layout, feed).instances
    fields = {"datasource": "shop-db", "table": "orders"}
    fields.update({"extract": "full"} if action == "import" else {"load": "insert", "staging": "s"})
    for t, status in ((T, "FAILED"), (T + timedelta(hours=1), "RUNNING"), (T + timedelta(hours=2), "SUCCEEDED")):
        records.write(record(feed=feed, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", run_id="r", status=status,
                             started="2026-11-21T13:00:00Z", error="refused" if status == "FAILED" else None,
                             **fields), t)
    dead = _ledger(repo, "primary", clock=(T - timedelta(days=1)).timestamp())
    assert getattr(dead, lock)(feed, T + timedelta(hours=1)).try_acquire("gone", LeaseDetails()).taken
    code, commands, err = _rerun(capsys, repo, "--feed", feed, "--action", action, "--cluster", "primary", *WINDOW)
    assert code == 0, err
    assert [_after(words, f"{action}.py") for words in commands] == [
        ["--feed", feed, "--cluster", "primary", "--time", f"2026-11-21T{hour}:00Z", "--force"]
        for hour in ("10", "11")]


@pytest.mark.parametrize(("argv", "says"), [
    (["--process", "hourly-clicks-summary", "--feed", "clicks", "--action", "replication"], "not both"),
    (["--feed", "clicks", "--action", "replication", "--as-ran"], "--as-ran reruns process instances"),
    (["--feed", "clicks", "--action", "compaction"], "Unknown --action 'compaction'"),
    (["--feed", "clicks"], "Give --action"),
    (["--process", "hourly-clicks-summary", "--continue"], "--continue is for a feed's actions"),
    (["--feed", "clicks", "--action", "replication", "--cluster", "primary"], "not a target of feed 'clicks'"),
])
def test_bad_calls_are_one_sentence(capsys: pytest.CaptureFixture[str], repo: Path, argv: list[str],
                                    says: str) -> None:
    code, commands, err = _rerun(capsys, repo, *argv, *(["--cluster", "backup"] if "--cluster" not in argv else []),
                                 *WINDOW)
    assert code == 2 and commands == []
    assert err.startswith("toolkit: ") and says in err and len(err.strip().splitlines()) == 1, err


def test_nothing_to_rerun_is_said(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "replication", "--cluster", "backup",
                                 *WINDOW)
    assert code == 0 and commands == []
    assert err == ("No replication of feed 'clicks' on 'backup' from 2026-11-21T10:00Z to 2026-11-21T12:00Z is FAILED "
                   "or TIMEDOUT or KILLED: nothing to rerun.\n")


