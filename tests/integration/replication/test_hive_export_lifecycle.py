"""Hive export in the lifecycle of every feed action (toolkit/runtime/lifecycle.py), on the test session's own
catalog: its lineage run carries the definition it ran, a second export of the same instance is told who holds
its lease (exit 5, nothing written), and a failure (injected into the copy) is told to the feed's webhook, a
real HTTP server on loopback."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.integration.openlineage.lineage_setup import lineage_to
from tests.integration.replication.hive_feed import sessions_feed
from tests.lineage_receiver import lineage_receiver
from tests.notified_feed import notify_by_webhook
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.entities.provenance import definition_hash
from toolkit.entities.repo import ConfigRepo
from toolkit.errors import BlockedError
from toolkit.notifications.notifier import Notifier
from toolkit.replication.hive import runner
from toolkit.replication.hive.runner import HIVE_EXPORT, run_hive_export
from toolkit.runtime.lifecycle import FeedCall
from toolkit.runtime.run_context import RunContext
from toolkit.storage.filesystem import StorageError

T = utc(2026, 11, 21)
DAILY = "ds=${YEAR}-${MONTH}-${DAY}"
_names = itertools.count()


def _table_feed(spark, tmp_path: Path, url: str) -> ConfigRepo:  # type: ignore[no-untyped-def]
    """The table feed `sessions` on primary, its partition of T in place, notices going to `url`."""
    repo, _ = make_repo(tmp_path)
    database = f"lifecycle_hive_{next(_names)}"
    (repo / "feeds" / "sessions.yaml").write_text(sessions_feed(f"catalog:{database}:src#{DAILY}",
                                                                f"catalog:{database}:dst#{DAILY}"))
    notify_by_webhook(repo, "primary", "sessions", url)
    spark.sql(f"CREATE DATABASE {database} LOCATION '{(tmp_path / 'warehouse').as_uri()}'")
    spark.sql(f"CREATE TABLE {database}.src (id INT, name STRING) PARTITIONED BY (ds STRING) STORED AS PARQUET")
    partition = tmp_path / "src" / "day1"
    partition.mkdir(parents=True)
    (partition / "part-00000.parquet").write_bytes(b"not really parquet")
    spark.sql(f"ALTER TABLE {database}.src ADD PARTITION (ds = '2026-11-21') LOCATION '{partition.as_uri()}'")
    return ConfigRepo.load(repo)


def test_the_run_carries_the_definition_a_second_caller_is_blocked_and_a_failure_is_told(
        spark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from toolkit.storage.catalog_factory import catalog_for
    from toolkit.storage.hadoop import HadoopFileSystem

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
        exported = run_hive_export(spark, call, (tmp_path / "export").as_uri(), context("fixed"))
    assert exported.files == 1
    [notice] = hook.events
    assert {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id", "error")} == {
        "event": "failed", "kind": "feed", "entity": "sessions", "cluster": "primary",
        "instance": "2026-11-21T00:00Z", "status": "FAILED", "run_id": "failing",
        "error": "the export folder's file system is full"}
    assert notice["rerun"] == (f"spark-submit entrypoints/hive_export.py --repo {config.root} --feed sessions "
                               f"--cluster primary --time 2026-11-21T00:00Z --to {failed}")
    expected = definition_hash(config.feed("sessions"), config.root)
    assert [(e["eventType"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"]) for e in lineage.events] == [
        ("START", expected), ("FAIL", expected), ("START", expected), ("COMPLETE", expected)]
