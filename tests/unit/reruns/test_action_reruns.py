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
from toolkit.core.ledger.hive_transfers import HiveTransferRecord, hive_records
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
        ["--feed", "clicks", "--target", "backup", "--from", f"2026-11-21T{hour}:00Z", "--to", f"2026-11-21T{hour}:00Z",
         "--recopy"] for hour in ("11", "12")]
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
    # shop-orders is imported hourly, top-pages exported daily
    feed, first, step = ("shop-orders", T, timedelta(hours=1)) if action == "import" else \
        ("top-pages", utc(2026, 11, 21), timedelta(days=1))
    times = [first + k * step for k in range(3)]
    records = book(primary.fs, primary.layout, feed).instances
    fields = {"datasource": "shop-db", "table": "orders"}
    fields.update({"extract": "full"} if action == "import" else {"load": "insert", "staging": "s"})
    for t, status in zip(times, ("FAILED", "RUNNING", "SUCCEEDED"), strict=True):
        records.write(record(feed=feed, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", run_id="r", status=status,
                             started="2026-11-21T13:00:00Z", error="refused" if status == "FAILED" else None,
                             **fields), t)
    dead = _ledger(repo, "primary", clock=(T - timedelta(days=1)).timestamp())
    assert getattr(dead, lock)(feed, times[1]).try_acquire("gone", LeaseDetails()).taken
    code, commands, err = _rerun(capsys, repo, "--feed", feed, "--action", action, "--cluster", "primary",
                                 "--from", f"{times[0]:%Y-%m-%dT%H:%MZ}", "--to", f"{times[2]:%Y-%m-%dT%H:%MZ}",
                                 "--now", "2026-11-24T00:00Z")
    assert code == 0, err
    assert [_after(words, f"{action}.py") for words in commands] == [
        ["--feed", feed, "--cluster", "primary", "--time", f"{t:%Y-%m-%dT%H:%MZ}", "--force"] for t in times[:2]]


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


def test_hive_exports_rerun_into_the_directory_they_were_given_and_a_stopped_one_is_killed(
        capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    primary = _ledger(repo, "primary")
    days = [utc(2026, 11, 21) + timedelta(days=k) for k in range(5)]
    records = hive_records(primary.fs, primary.layout, "hive-export", "visits")
    runs = (("FAILED", "f"), ("RUNNING", "dead"), ("RUNNING", "stopped"), ("RUNNING", "alive"), ("SUCCEEDED", "s"))
    for t, (status, run_id) in zip(days, runs, strict=True):
        records.write(HiveTransferRecord("visits", "primary", f"{t:%Y-%m-%dT%H:%MZ}", run_id, status,
                                         "2026-11-26T00:00:00Z", "web.visits", f"ds={t:%Y-%m-%d}",
                                         f"file:///exports/visits {t:%d}", error="refused" if run_id == "f" else None),
                      t)
    dead = _ledger(repo, "primary", clock=(T - timedelta(days=1)).timestamp())
    assert dead.hive_export_lock("visits", days[1]).try_acquire("dead", LeaseDetails()).taken
    stopped = primary.hive_export_lock("visits", days[2])
    assert stopped.try_acquire("stopped", LeaseDetails()).taken
    stopped.release()
    assert primary.hive_export_lock("visits", days[3]).try_acquire("alive", LeaseDetails()).taken
    window = ("--from", "2026-11-21T00:00Z", "--to", "2026-11-25T00:00Z")
    code, commands, err = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-export", "--cluster", "primary",
                                 *window)
    assert code == 0, err
    assert [_after(words, "hive_export.py") for words in commands] == [
        ["--feed", "visits", "--cluster", "primary", "--time", f"{t:%Y-%m-%dT%H:%MZ}", "--to",
         f"file:///exports/visits {t:%d}"] for t in days[:3]]
    code, commands, _ = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-export", "--cluster", "primary",
                               *window, "--status", "RUNNING,SUCCEEDED")
    assert [_after(words, "hive_export.py")[5] for words in commands] == ["2026-11-24T00:00Z", "2026-11-25T00:00Z"]


def test_hive_imports_rerun_from_their_export_with_the_options_they_were_given(
        capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    backup = _ledger(repo, "backup")
    days = [utc(2026, 11, 21), utc(2026, 11, 22)]
    records = hive_records(backup.fs, backup.layout, "hive-import", "visits")
    records.write(HiveTransferRecord("visits", "backup", "2026-11-21T00:00Z", "f", "FAILED", "2026-11-26T00:00:00Z",
                                     "web.visits", "ds=2026-11-21", "file:///exports/v1", error="incompatible"),
                  days[0])
    records.write(HiveTransferRecord("visits", "backup", "2026-11-22T00:00Z", "dead", "RUNNING",
                                     "2026-11-26T00:00:00Z", "web.visits", "ds=2026-11-22", "file:///exports/v2",
                                     keep_export=True, checksums=False, table_location="file:///tables/visits"),
                  days[1])
    dead = _ledger(repo, "backup", clock=(T - timedelta(days=1)).timestamp())
    assert dead.import_lock("web", "visits", "ds=2026-11-22").try_acquire("dead", LeaseDetails()).taken
    code, commands, err = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-import", "--cluster", "backup",
                                 "--from", "2026-11-21T00:00Z", "--to", "2026-11-22T00:00Z")
    assert code == 0, err
    assert [_after(words, "hive_import.py") for words in commands] == [
        ["--feed", "visits", "--cluster", "backup", "--time", "2026-11-21T00:00Z", "--from", "file:///exports/v1"],
        ["--feed", "visits", "--cluster", "backup", "--time", "2026-11-22T00:00Z", "--from", "file:///exports/v2",
         "--keep-export", "--no-checksums", "--table-location", "file:///tables/visits"]]
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "hive-import", "--cluster", "backup",
                                 *WINDOW)
    assert code == 2 and commands == []
    assert "Feed 'clicks' is not a catalog table on cluster 'backup'" in err, err
    code, commands, err = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-import", "--cluster", "backup",
                                 *WINDOW, "--continue")
    assert code == 2 and err.startswith("toolkit: The hive-import of a feed cannot --continue (an import finishes")


def test_a_hive_instance_another_run_holds_now_is_running_not_killed_nor_failed(
        capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    """Found by an attack: a RUNNING record of run A while run B held the lease, live, was listed KILLED (and a
    FAILED one FAILED), and its rerun was blocked by B."""
    primary = _ledger(repo, "primary")
    days = [utc(2026, 11, 21), utc(2026, 11, 22)]
    records = hive_records(primary.fs, primary.layout, "hive-export", "visits")
    for t, status in zip(days, ("RUNNING", "FAILED"), strict=True):
        records.write(HiveTransferRecord("visits", "primary", f"{t:%Y-%m-%dT%H:%MZ}", "A", status,
                                         "2026-11-26T00:00:00Z", "web.visits", f"ds={t:%Y-%m-%d}", "file:///e"), t)
        assert primary.hive_export_lock("visits", t).try_acquire("B", LeaseDetails()).taken
    window = ("--from", "2026-11-21T00:00Z", "--to", "2026-11-22T00:00Z")
    code, commands, err = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-export", "--cluster", "primary",
                                 *window)
    assert code == 0 and commands == [], err
    code, commands, err = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-export", "--cluster", "primary",
                                 *window, "--status", "RUNNING")
    assert [_after(words, "hive_export.py")[5] for words in commands] == ["2026-11-21T00:00Z", "2026-11-22T00:00Z"]


@pytest.mark.parametrize(("damage", "why"), [
    ({"table": "visits"}, "its table 'visits' is not database.table"),
    ({"table": "web.visits.x"}, "its table 'web.visits.x' is not database.table"),
    ({"partition": ""}, "its partition is empty"),
    ({"directory": "file:///e\nfile:///f"}, "a value holds a control character"),
    ({"directory": "file:///e\u001b[2Kx"}, "a value holds a control character"),
    ({"directory": "hdfs://etl:s3cret@nn:8020/e"}, "a directory writes a password into its URI"),
    ({"feed": "clicks"}, "it is of feed 'clicks' at 2026-11-21T00:00Z, not of 'visits'"),
    ({"time": "2026-11-22T00:00Z"}, "it is of feed 'visits' at 2026-11-22T00:00Z"),
])
def test_a_hand_edited_hive_record_is_named_and_nothing_is_printed(
        capsys: pytest.CaptureFixture[str], repo: Path, damage: dict[str, str], why: str) -> None:
    """Found by an attack: such a record printed a command split over lines, read a lock no run takes, or was
    blamed on the call (exit 2) without naming the file."""
    backup = _ledger(repo, "backup")
    records = hive_records(backup.fs, backup.layout, "hive-import", "visits")
    fields = {"feed": "visits", "cluster": "backup", "time": "2026-11-21T00:00Z", "run_id": "r", "status": "FAILED",
              "started": "2026-11-26T00:00:00Z", "table": "web.visits", "partition": "ds=2026-11-21",
              "directory": "file:///e", **damage}
    records.write(HiveTransferRecord(**fields), utc(2026, 11, 21))  # type: ignore[arg-type]
    code, commands, err = _rerun(capsys, repo, "--feed", "visits", "--action", "hive-import", "--cluster", "backup",
                                 "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T00:00Z")
    assert code == 1 and commands == []
    assert err.startswith(f"toolkit: The ledger record {records.path(utc(2026, 11, 21))} is damaged ({why}")
    assert len(err.strip().splitlines()) == 1


def test_nothing_to_rerun_is_said(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "replication", "--cluster", "backup",
                                 *WINDOW)
    assert code == 0 and commands == []
    assert err == ("No replication of feed 'clicks' on 'backup' from 2026-11-21T10:00Z to 2026-11-21T12:00Z is FAILED "
                   "or TIMEDOUT or KILLED: nothing to rerun.\n")




def test_a_delayed_replication_reruns_the_instance_listed_by_its_window(capsys: pytest.CaptureFixture[str],
                                                                       repo: Path) -> None:
    """Found by an attack: with a target's delay of a month, `--time` instance + delay named another instance (the
    runner takes the instance at or before the time minus the delay); a window of the one instance names it."""
    feed = repo / "feeds" / "clicks.yaml"
    feed.write_text(feed.read_text().replace("  - name: backup\n    type: target\n",
                                             "  - name: backup\n    type: target\n    delay: months(1)\n"))
    config = ConfigRepo.load(repo)
    backup = _ledger(repo, "backup")
    jan31 = utc(2026, 1, 31, 10)
    write_record(backup.fs, record_path(config.cluster("backup"), "replication", "clicks", jan31), ReplicationRecord(
        "clicks", "backup", "2026-02-28T10:00Z", "r", status="FAILED"))
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "replication", "--cluster", "backup",
                                 "--from", "2026-01-01T00:00Z", "--to", "2026-02-01T00:00Z")
    assert code == 0, err
    assert [_after(words, "replication.py") for words in commands] == [
        ["--feed", "clicks", "--target", "backup", "--from", "2026-01-31T10:00Z", "--to", "2026-01-31T10:00Z",
         "--recopy"]]


def test_import_and_export_reruns_check_the_feed_has_them_on_the_cluster(capsys: pytest.CaptureFixture[str],
                                                                         repo: Path) -> None:
    """Found by an attack: a feed without the action on the cluster printed commands the entrypoint refuses."""
    for feed, action in (("shop-orders", "export"), ("clicks", "import"), ("top-pages", "import")):
        code, commands, err = _rerun(capsys, repo, "--feed", feed, "--action", action, "--cluster", "primary",
                                     *WINDOW)
        assert code == 2 and commands == [], (feed, action)
        assert f"Feed '{feed}' has no {action} on cluster 'primary'" in err, err


def test_now_ends_the_window_and_records_off_the_grid_or_linked_are_not_instances(
        capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    """Found by an attack: --now did not end the window as its help says, a record at 10:30 of an hourly feed was
    listed (its rerun would copy the 10:00 instance), and a record linked from elsewhere was read."""
    config = ConfigRepo.load(repo)
    backup = _ledger(repo, "backup")
    folder = Path(record_path(config.cluster("backup"), "replication", "clicks", T).removeprefix("file://")).parent
    for t in (T, T + timedelta(hours=2)):
        write_record(backup.fs, record_path(config.cluster("backup"), "replication", "clicks", t), ReplicationRecord(
            "clicks", "backup", f"{t:%Y-%m-%dT%H:%MZ}", "r", status="FAILED"))
    (folder / "20261121T1030Z.json").write_bytes((folder / "20261121T1000Z.json").read_bytes())
    (folder / "20261121T1100Z.json").symlink_to(folder / "20261121T1000Z.json")
    code, commands, err = _rerun(capsys, repo, "--feed", "clicks", "--action", "replication", "--cluster", "backup",
                                 *WINDOW, "--now", "2026-11-21T11:30Z")
    assert code == 0, err
    assert [_after(words, "replication.py")[5] for words in commands] == ["2026-11-21T10:00Z"]
