"""Hive export and import in the lifecycle of every feed action (toolkit/services/runtime/lifecycle.py), on the test
session's own catalog: their lineage runs carry the definition they ran, a second export of the same instance is
told who holds its lease (exit 5, nothing written), an import of an instance outside the feed's validity does
nothing (exit 4), and a failure (injected into the copy) is told to the feed's webhook, a real HTTP server on
loopback, with the command that reruns it."""

from __future__ import annotations

import io
import itertools
import shlex
import time
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest

from tests.integration.openlineage.lineage_setup import lineage_to
from tests.integration.replication.hive_feed import sessions_feed
from tests.lineage_receiver import lineage_receiver
from tests.notified_feed import notify_by_webhook
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.replication.hive import runner
from toolkit.actions.replication.hive.runner import HIVE_EXPORT, plan_hive_import, run_hive_export, run_hive_import
from toolkit.cli.main import main
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.hive_transfers import HiveTransferRecord, hive_records
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import BlockedError, SkippedError
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.lifecycle import FeedCall
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21)
DAILY = "ds=${YEAR}-${MONTH}-${DAY}"
_names = itertools.count()


def _table_feed(spark, tmp_path: Path, url: str, notified: str = "primary") -> ConfigRepo:  # type: ignore[no-untyped-def]
    """The table feed `sessions` on primary (its table `src`, the partition of T in place) and backup (`dst`),
    the notices of cluster `notified` going to `url`."""
    repo, _ = make_repo(tmp_path)
    database = f"lifecycle_hive_{next(_names)}"
    (repo / "feeds" / "sessions.yaml").write_text(sessions_feed(f"catalog:{database}:src#{DAILY}",
                                                                f"catalog:{database}:dst#{DAILY}"))
    notify_by_webhook(repo, notified, "sessions", url)
    spark.sql(f"CREATE DATABASE {database} LOCATION '{(tmp_path / 'warehouse').as_uri()}'")
    spark.sql(f"CREATE TABLE {database}.src (id INT, name STRING) PARTITIONED BY (ds STRING) STORED AS PARQUET")
    partition = tmp_path / "src" / "day1"
    partition.mkdir(parents=True)
    (partition / "part-00000.parquet").write_bytes(b"not really parquet")
    spark.sql(f"ALTER TABLE {database}.src ADD PARTITION (ds = '2026-11-21') LOCATION '{partition.as_uri()}'")
    return ConfigRepo.load(repo)


def test_the_run_carries_the_definition_a_second_caller_is_blocked_and_a_failure_is_told(
        spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem

    fs = HadoopFileSystem(spark)
    with lineage_receiver() as lineage, lineage_receiver("/hook") as hook, catalog_for(spark, None) as catalog:
        config = _table_feed(spark, tmp_path, hook.url + "/hook")
        primary = config.cluster("primary")
        call = FeedCall.of(HIVE_EXPORT, config, config.feed("sessions"), primary, T)
        notifier = Notifier(fs, primary)

        def context(run_id: str) -> RunContext:
            return RunContext(fs, run_id, catalog=catalog, notifier=notifier,
                              lineage=lineage_to(lineage.url, config.root, run_id))

        held = context("holder").ledger(primary).hive_export_lock("sessions", T)
        assert held.try_acquire("holder", None).taken
        with pytest.raises(BlockedError, match="Hive export of the instance 2026-11-21T00:00Z of feed 'sessions' "
                                               "on cluster 'primary' is being run by run holder") as blocked:
            run_hive_export(spark, call, (tmp_path / "blocked").as_uri(), context("second"))
        assert blocked.value.exit_code == 5 and not (tmp_path / "blocked").exists()
        held.release()

        def disk_full(*args: object, **kwargs: object) -> None:
            raise StorageError("the export folder's file system is full")

        failed = (tmp_path / "failed folder").as_uri()
        with monkeypatch.context() as patched:
            patched.setattr(runner, "export_partition", disk_full)
            with pytest.raises(StorageError):
                run_hive_export(spark, FeedCall.of(HIVE_EXPORT, config, config.feed("sessions"), primary, T,
                                                   ("--to", failed)), failed, context("failing"))
        records = hive_records(fs, Ledger.of(fs, primary).layout, "hive-export", "sessions")
        assert _record(records.read(T)) == ("failing", "FAILED", "the export folder's file system is full", failed)
        rerun = _rerun(config.root, "hive-export", "primary")
        exported = run_hive_export(spark, call, (tmp_path / "export").as_uri(), context("fixed"))
    assert exported.files == 1
    assert _record(records.read(T)) == ("fixed", "SUCCEEDED", None, (tmp_path / "export").as_uri())
    assert _the_notice(hook) == ({
        "event": "failed", "kind": "feed", "entity": "sessions", "cluster": "primary",
        "instance": "2026-11-21T00:00Z", "status": "FAILED", "run_id": "failing",
        "error": "the export folder's file system is full"},
        f"spark-submit entrypoints/hive_export.py --repo {config.root} --feed sessions --cluster primary "
        f"--time 2026-11-21T00:00Z --to {failed}")
    assert rerun == shlex.split(_the_notice(hook)[1])[1:]  # `toolkit rerun` calls it again as the notice says
    expected = definition_hash(config.feed("sessions"), config.root)
    assert [(e["eventType"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"]) for e in lineage.events] == [
        ("START", expected), ("FAIL", expected), ("START", expected), ("COMPLETE", expected)]


def test_an_import_carries_the_definition_refuses_an_instance_outside_the_validity_and_tells_a_failure(
        spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem

    fs = HadoopFileSystem(spark)
    with lineage_receiver() as lineage, lineage_receiver("/hook") as hook, catalog_for(spark, None) as catalog:
        config = _table_feed(spark, tmp_path, hook.url + "/hook", notified="backup")
        feed, primary, backup = config.feed("sessions"), config.cluster("primary"), config.cluster("backup")
        export = (tmp_path / "export folder").as_uri()
        run_hive_export(spark, FeedCall.of(HIVE_EXPORT, config, feed, primary, T), export, RunContext(fs, "e",
                                                                                                     catalog=catalog))
        plan = plan_hive_import(fs, feed, backup, export, None)
        notifier = Notifier(fs, backup)

        def context(run_id: str) -> RunContext:
            return RunContext(fs, run_id, catalog=catalog, notifier=notifier,
                              lineage=lineage_to(lineage.url, config.root, run_id, cluster="backup"))

        with pytest.raises(SkippedError, match="2025-06-01T00:00Z is outside the validity of feed 'sessions' on "
                                               "cluster 'backup'") as outside:
            run_hive_import(spark, config, feed, backup, replace(plan, time=utc(2025, 6, 1)), context("outside"))
        assert outside.value.exit_code == 4 and not catalog.table_exists(plan.database, plan.table)

        def disk_full(*args: object, **kwargs: object) -> None:
            raise StorageError("the table's file system is full")

        with monkeypatch.context() as patched:
            patched.setattr(runner, "import_held", disk_full)
            with pytest.raises(StorageError):
                run_hive_import(spark, config, feed, backup, plan, context("failing"))
        records = hive_records(fs, Ledger.of(fs, backup).layout, "hive-import", "sessions")
        assert _record(records.read(T)) == ("failing", "FAILED", "the table's file system is full", export)
        rerun = _rerun(config.root, "hive-import", "backup")
        imported = run_hive_import(spark, config, feed, backup, plan, context("fixed"))
    assert imported.files == 1 and catalog_partitions(spark, f"{plan.database}.{plan.table}") == ["ds=2026-11-21"]
    assert _record(records.read(T)) == ("fixed", "SUCCEEDED", None, export)
    assert _the_notice(hook) == ({
        "event": "failed", "kind": "feed", "entity": "sessions", "cluster": "backup",
        "instance": "2026-11-21T00:00Z", "status": "FAILED", "run_id": "failing",
        "error": "the table's file system is full"},
        f"spark-submit entrypoints/hive_import.py --repo {config.root} --feed sessions --cluster backup "
        f"--time 2026-11-21T00:00Z --from {export}")
    assert rerun == shlex.split(_the_notice(hook)[1])[1:]
    expected = definition_hash(feed, config.root)
    assert [(e["eventType"], e["job"]["name"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"])
            for e in lineage.events] == [("START", "hive-import.sessions", expected),
                                         ("FAIL", "hive-import.sessions", expected),
                                         ("START", "hive-import.sessions", expected),
                                         ("COMPLETE", "hive-import.sessions", expected)]


def catalog_partitions(spark, table: str) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(row[0] for row in spark.sql(f"SHOW PARTITIONS {table}").collect())


def _record(record: HiveTransferRecord | None) -> tuple[str, str, str | None, str] | None:
    """What a run's record of the instance says: its run, status, error and directory."""
    return None if record is None else (record.run_id, record.status.value, record.error, record.directory)


def _rerun(repo: Path, action: str, cluster: str) -> list[str]:
    """The arguments after spark-submit of the one command `toolkit rerun` prints for T's failed run of `action`."""
    with redirect_stdout(io.StringIO()) as out:
        assert main(["rerun", "--repo", str(repo), "--feed", "sessions", "--action", action, "--cluster", cluster,
                     "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T00:00Z"]) == 0
    [line] = out.getvalue().splitlines()
    words = shlex.split(line)
    start = next(k for k, word in enumerate(words) if word.endswith(f"entrypoints/{action.replace('-', '_')}.py"))
    return ["entrypoints/" + Path(words[start]).name, *words[start + 1:]]


def _the_notice(hook) -> tuple[dict[str, object], str]:  # type: ignore[no-untyped-def]
    """The one notice the webhook received: its identifying fields, and its rerun command."""
    [notice] = hook.events
    return {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id", "error")}, \
        notice["rerun"]


def test_a_run_that_lost_its_lease_leaves_its_successors_record_alone(
        spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Found by an attack: run A, whose storage stopped answering its renewals, was taken over by run B, which
    exported the instance; A's failure then wrote its record over B's, and `toolkit rerun` offered A's directory."""
    from toolkit.core.ledger import locks
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem

    fs = HadoopFileSystem(spark)
    with catalog_for(spark, None) as catalog:
        config = _table_feed(spark, tmp_path, "http://127.0.0.1:9/none")
        primary = config.cluster("primary")
        call = FeedCall.of(HIVE_EXPORT, config, config.feed("sessions"), primary, T)
        renew, export = locks.LeaseLock.renew, runner.export_partition

        def unreachable_from_a(self: locks.LeaseLock) -> object:
            if self.lease is not None and self.lease.run_id == "A":
                raise StorageError("the ledger does not answer A's host")
            return renew(self)

        def taken_over_meanwhile(*args: object, **kwargs: object) -> None:
            time.sleep(1.5)  # A's lease of 1 s ends; B takes the instance over and exports it
            monkeypatch.setattr(runner, "export_partition", export)
            run_hive_export(spark, call, (tmp_path / "B").as_uri(), RunContext(fs, "B", catalog=catalog))
            raise StorageError("A's copy failed")

        monkeypatch.setattr(locks.LeaseLock, "renew", unreachable_from_a)
        monkeypatch.setattr(runner, "export_partition", taken_over_meanwhile)
        with pytest.raises(StorageError, match="A's copy failed"):
            run_hive_export(spark, call, (tmp_path / "A").as_uri(), RunContext(fs, "A", catalog=catalog,
                                                                                lease_seconds=1.0))
    records = hive_records(fs, Ledger.of(fs, primary).layout, "hive-export", "sessions")
    assert _record(records.read(T)) == ("B", "SUCCEEDED", None, (tmp_path / "B").as_uri())


def test_an_import_killed_after_it_consumed_its_export_is_not_offered_for_a_rerun(
        spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Found by an attack: killed between the removal of the export it consumed and its record, the import was
    listed KILLED with a rerun from a directory that is gone, which failed every time; its partition and event
    were in place. Its run's event says it published: it is listed SUCCEEDED."""
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem

    class Killed(BaseException):
        pass

    fs = HadoopFileSystem(spark)
    with catalog_for(spark, None) as catalog:
        config = _table_feed(spark, tmp_path, "http://127.0.0.1:9/none")
        feed, primary, backup = config.feed("sessions"), config.cluster("primary"), config.cluster("backup")
        export = (tmp_path / "export").as_uri()
        run_hive_export(spark, FeedCall.of(HIVE_EXPORT, config, feed, primary, T), export,
                        RunContext(fs, "e", catalog=catalog))
        plan = plan_hive_import(fs, feed, backup, export, None)
        remove = runner.remove_consumed_export

        def killed_after(*args: object) -> None:
            remove(*args)  # type: ignore[arg-type]
            raise Killed()

        monkeypatch.setattr(runner, "remove_consumed_export", killed_after)
        with pytest.raises(Killed):
            run_hive_import(spark, config, feed, backup, plan, RunContext(fs, "K", catalog=catalog))
    assert not (tmp_path / "export").exists()
    records = hive_records(fs, Ledger.of(fs, backup).layout, "hive-import", "sessions")
    assert _record(records.read(T)) == ("K", "RUNNING", None, export)
    with redirect_stdout(io.StringIO()) as out:
        assert main(["rerun", "--repo", str(config.root), "--feed", "sessions", "--action", "hive-import",
                     "--cluster", "backup", "--from", "2026-11-21T00:00Z", "--to", "2026-11-21T00:00Z",
                     "--status", "FAILED,KILLED,RUNNING"]) == 0
    assert out.getvalue() == ""
