"""The database export (toolkit/actions/database_export/) on real PostgreSQL and MariaDB servers: each load type's
effect on the target table, compared with what the server's own client reads; a finished export skipped, a forced one
done again; and what an unpublished instance, a missing table or a column the target lacks say."""

from __future__ import annotations

import json
import threading
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from tests.integration.database_transfers.transfer_repo import TransferRepo, transfer_repo
from tests.integration.databases import DatabaseServer
from toolkit.actions.database_export.export_entry import export_policy
from toolkit.actions.database_export.runner import ExportCall, ExportOutcome, Waiting, run_export
from toolkit.clock import WallClock
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.hadoop import HadoopFileSystem
from toolkit.core.storage.jdbc.credential_provider import alias_reader
from toolkit.errors import SkippedError, TimedOutError, ToolkitError, UsageError, WaitingError
from toolkit.services.datasource_access.endpoints import FOR_EXPORT, endpoint_for
from toolkit.services.runtime.run_context import RunContext

DAY = datetime(2026, 1, 1, tzinfo=timezone.utc)
TOTALS = "day date, region string, total decimal(10,2)"


@pytest.fixture(params=["postgres", "mariadb"])
def server(request: pytest.FixtureRequest) -> DatabaseServer:
    return request.getfixturevalue(f"{request.param}_server")


def export_instance(spark: SparkSession, repo: TransferRepo, t: datetime = DAY, *, force: bool = False,
                    run_id: str = "run") -> ExportOutcome:
    config = ConfigRepo.load(repo.repo)
    feed, cluster = config.feed("totals"), config.cluster("lake")
    policy = export_policy(feed, cluster)
    datasource = config.datasource(policy.datasource)
    fs = HadoopFileSystem(spark)
    endpoint = endpoint_for(datasource, FOR_EXPORT, cluster, fs, alias_reader(spark))
    return run_export(spark, ExportCall.of(config, feed, cluster, policy, datasource, t, force), endpoint,
                      RunContext(fs, run_id=run_id))


def publish_totals(spark: SparkSession, repo: TransferRepo, rows: list[tuple[str, str, str]]) -> None:
    """The instance of DAY, as a producer published it: parquet files in its folder."""
    frame = spark.createDataFrame([(date.fromisoformat(d), r, Decimal(t)) for d, r, t in rows], TOTALS)
    frame.coalesce(1).write.mode("overwrite").parquet(str(repo.data("totals") / "2026/01/01"))


def unreadable_instance(repo: TransferRepo) -> None:
    """A target table holding one row, and the instance of DAY published in JSON, which the feed (parquet) does
    not read."""
    target_table(repo, [("2025-12-31", "eu", "1.00")])
    folder = repo.data("totals") / "2026/01/01"
    folder.mkdir(parents=True)
    (folder / "part-00000.json").write_text('{"day": "2026-01-01", "region": "eu", "total": 2}\n')
    (folder / "_SUCCESS").touch()


def target_table(repo: TransferRepo, rows: list[tuple[str, str, str]]) -> None:
    text = "text" if repo.server.kind == "postgres" else "varchar(32)"
    repo.sql(f"CREATE TABLE daily_totals (day date, region {text}, total numeric(10,2), PRIMARY KEY (day, region))")
    if rows:
        repo.sql("INSERT INTO daily_totals VALUES " + ", ".join(f"('{d}', '{r}', {t})" for d, r, t in rows))


def target_rows(repo: TransferRepo) -> list[tuple[str, str, str]]:
    """The target table as the server's own client reads it."""
    out = repo.sql("SELECT day, region, total FROM daily_totals ORDER BY day, region")
    lines = [line.split("\t") if "\t" in line else line.split("|") for line in out.splitlines() if line.strip()]
    return [(d.strip(), r.strip(), t.strip()) for d, r, t in lines if d.strip()[:1].isdigit()]


def repo_for(server: DatabaseServer, tmp_path: Path, name: str, load: str, key: str | None = None) -> TransferRepo:
    server.create_database(name)
    return transfer_repo(tmp_path, server, name, export_load=load, update_key=key)


INSTANCE = [("2026-01-01", "eu", "10.50"), ("2026-01-01", "us", "20.00")]


def test_a_snapshot_replaces_every_row_of_the_target_with_the_instances(
        spark: SparkSession, server: DatabaseServer, tmp_path: Path) -> None:
    repo = repo_for(server, tmp_path, f"snapshot_{server.kind}", "snapshot")
    target_table(repo, [("2025-12-31", "eu", "1.00"), ("2026-01-01", "eu", "2.00")])
    publish_totals(spark, repo, INSTANCE)

    outcome = export_instance(spark, repo)

    assert target_rows(repo) == INSTANCE
    assert outcome.rows == 2
    record = json.loads((repo.ledger() / "exports" / "totals" / "20260101T0000Z.json").read_text())
    assert (record["status"], record["rows"], record["load"]) == ("SUCCEEDED", 2, "snapshot")
    assert "feed_toolkit_stage_" not in repo.sql("SELECT 1") + _tables(repo)  # the staging table is gone
    assert "feed_toolkit_exports" in _tables(repo)


def _tables(repo: TransferRepo) -> str:
    if repo.server.kind == "postgres":
        return repo.sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    return repo.sql("SHOW TABLES")


def test_allowinsert_updates_the_rows_of_its_key_and_inserts_the_others(
        spark: SparkSession, server: DatabaseServer, tmp_path: Path) -> None:
    repo = repo_for(server, tmp_path, f"allowinsert_{server.kind}", "allowinsert", "day, region")
    target_table(repo, [("2025-12-31", "eu", "1.00"), ("2026-01-01", "eu", "2.00")])
    publish_totals(spark, repo, INSTANCE)

    export_instance(spark, repo)

    assert target_rows(repo) == [("2025-12-31", "eu", "1.00"), *INSTANCE]


def test_updateonly_updates_the_rows_of_its_key_and_inserts_nothing(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = repo_for(postgres_server, tmp_path, "updateonly", "updateonly", "day,region")
    target_table(repo, [("2025-12-31", "eu", "1.00"), ("2026-01-01", "eu", "2.00")])
    publish_totals(spark, repo, INSTANCE)

    export_instance(spark, repo)

    assert target_rows(repo) == [("2025-12-31", "eu", "1.00"), ("2026-01-01", "eu", "10.50")]


def test_a_finished_export_is_skipped_and_a_forced_one_loads_again(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = repo_for(postgres_server, tmp_path, "finished", "allowinsert")  # no key: every row inserted
    target_table(repo, [])
    publish_totals(spark, repo, INSTANCE)
    export_instance(spark, repo, run_id="first")

    with pytest.raises(SkippedError, match="was exported into daily_totals by run first .* give --force"):
        export_instance(spark, repo, run_id="second")
    assert target_rows(repo) == INSTANCE  # not inserted twice
    repo.sql("DELETE FROM daily_totals")
    export_instance(spark, repo, force=True, run_id="forced")
    assert target_rows(repo) == INSTANCE


def test_an_instance_not_published_waits_and_touches_nothing(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = repo_for(postgres_server, tmp_path, "unpublished", "snapshot")
    target_table(repo, [("2025-12-31", "eu", "1.00")])

    with pytest.raises(WaitingError, match=r"The instance 2026-01-01T00:00Z of feed 'totals' on cluster 'lake' is "
                                           r"not available \(file:///.*/data/totals/2026/01/01\)"):
        export_instance(spark, repo)
    assert target_rows(repo) == [("2025-12-31", "eu", "1.00")]


def test_a_missing_table_and_a_column_the_target_lacks_are_one_sentence_each(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    repo = repo_for(postgres_server, tmp_path, "mismatch", "snapshot")
    publish_totals(spark, repo, INSTANCE)

    with pytest.raises(UsageError) as missing:
        export_instance(spark, repo)
    repo.sql("CREATE TABLE daily_totals (day date, total numeric(10,2))")
    with pytest.raises(UsageError) as column:
        export_instance(spark, repo)

    assert str(missing.value) == (
        "The export of feed 'totals' on cluster 'lake' into table 'daily_totals' of datasource 'shop-db': the table "
        f"daily_totals does not exist in {postgres_server.jdbc_url('mismatch')}: create it (the export loads rows, "
        "it does not design tables).")
    assert str(column.value) == (
        "The export of feed 'totals' on cluster 'lake' into table 'daily_totals' of datasource 'shop-db': the target "
        "table daily_totals has no column 'region' (its columns: day, total); leave them out with the export's "
        "fields.excludes, or add them to the table.")


class _SleepsCounted(WallClock):
    """The wall clock, each pause it takes kept in `slept`."""

    def __init__(self, slept: list[float]) -> None:
        super().__init__()
        self.slept = slept

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        super().sleep(seconds)


def test_an_export_waits_for_its_instance_and_gives_it_up_past_the_feeds_timeout(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:

    from toolkit.errors import ToolkitError

    repo = repo_for(postgres_server, tmp_path, "waiting", "snapshot")
    target_table(repo, [])
    config = ConfigRepo.load(repo.repo)
    feed, cluster = config.feed("totals"), config.cluster("lake")
    policy = export_policy(feed, cluster)
    datasource = config.datasource(policy.datasource)
    fs = HadoopFileSystem(spark)
    endpoint = endpoint_for(datasource, FOR_EXPORT, cluster, fs, alias_reader(spark))
    call = ExportCall.of(config, feed, cluster, policy, datasource, DAY)
    now = datetime.now(timezone.utc)
    slept: list[float] = []
    publisher = threading.Timer(1.0, lambda: publish_totals(spark, repo, INSTANCE))  # the producer, a moment later
    publisher.start()
    exported = run_export(spark, call, endpoint, RunContext(fs, run_id="waited", clock=_SleepsCounted(slept)),
                          Waiting(now + timedelta(seconds=60), now + timedelta(days=6),
                                  intervals=lambda: iter([0.2] * 1000)))
    publisher.join()
    assert exported.rows == 2 and target_rows(repo) == INSTANCE and slept and max(slept) == 0.2

    later = datetime(2026, 1, 2, tzinfo=timezone.utc)  # the next day, never published
    late = ExportCall.of(config, feed, cluster, policy, datasource, later)
    with pytest.raises(WaitingError, match=r"is not available .*; waited until"):
        run_export(spark, late, endpoint, RunContext(fs, run_id="short"), Waiting(now, now + timedelta(days=6)))
    with pytest.raises(ToolkitError, match=r"and the feed's timeout after it passed at 2026-01-08T00:00Z: the "
                                           r"instance is given up") as gone:
        run_export(spark, late, endpoint, RunContext(fs, run_id="past"),
                   Waiting(now, datetime(2026, 1, 8, tzinfo=timezone.utc)))
    assert gone.value.exit_code == 1


def test_an_instance_that_does_not_read_in_the_feeds_format_is_one_sentence_and_exit_1(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    from toolkit.core.storage.java_errors import SparkWorkError

    repo = repo_for(postgres_server, tmp_path, "badformat", "snapshot")
    unreadable_instance(repo)

    with pytest.raises(SparkWorkError) as failed:
        export_instance(spark, repo)

    assert failed.value.exit_code == 1 and "\n" not in str(failed.value)
    assert str(failed.value).startswith("Reading the instance 2026-01-01T00:00Z of feed 'totals' failed in Spark: ")
    assert "Please ensure that the file is in either ORC or Parquet format" in str(failed.value)
    assert target_rows(repo) == [("2025-12-31", "eu", "1.00")]


def test_the_run_carries_the_definition_and_a_failure_is_told_to_the_feeds_notification(
        spark: SparkSession, postgres_server: DatabaseServer, tmp_path: Path) -> None:
    """A failure of exit 1 (an instance that does not read in the feed's format) reaches the feed's webhook, a real
    HTTP server on loopback, and leaves the target unchanged; the export that then succeeds tells no one and its
    lineage run names the definition it ran."""
    from tests.integration.openlineage.lineage_setup import lineage_to
    from tests.lineage_receiver import lineage_receiver
    from tests.notified_feed import notify_by_webhook
    from toolkit.core.entities.provenance import definition_hash
    from toolkit.services.notifications.notifier import Notifier

    repo = repo_for(postgres_server, tmp_path, "told", "snapshot")
    unreadable_instance(repo)
    with lineage_receiver() as lineage, lineage_receiver("/hook") as hook:
        notify_by_webhook(repo.repo, "lake", "totals", hook.url + "/hook")
        config = ConfigRepo.load(repo.repo)
        feed, cluster = config.feed("totals"), config.cluster("lake")
        policy = export_policy(feed, cluster)
        datasource = config.datasource(policy.datasource)
        fs = HadoopFileSystem(spark)
        endpoint = endpoint_for(datasource, FOR_EXPORT, cluster, fs, alias_reader(spark))
        notifier = Notifier(fs, cluster)
        call = ExportCall.of(config, feed, cluster, policy, datasource, DAY)
        with pytest.raises(ToolkitError, match="Reading the instance 2026-01-01T00:00Z of feed 'totals' failed"):
            run_export(spark, call, endpoint, RunContext(fs, run_id="failing", notifier=notifier))
        assert target_rows(repo) == [("2025-12-31", "eu", "1.00")]
        publish_totals(spark, repo, INSTANCE)  # the producer publishes it again, in the feed's format
        run_export(spark, call, endpoint, RunContext(fs, run_id="fixed", notifier=notifier,
                                                     lineage=lineage_to(lineage.url, config, "fixed", "lake")))
        later = ExportCall.of(config, feed, cluster, policy, datasource, DAY + timedelta(days=1))  # never published
        now = datetime.now(timezone.utc)
        with pytest.raises(TimedOutError, match="the instance is given up") as given_up:
            run_export(spark, later, endpoint, RunContext(fs, run_id="late", notifier=notifier),
                       Waiting(now, now - timedelta(seconds=1)))
        assert given_up.value.exit_code == 1
    notice, timed_out = hook.events
    assert (timed_out["event"], timed_out["status"], timed_out["instance"], timed_out["run_id"]) == (
        "timedout", "TIMEDOUT", "2026-01-02T00:00Z", "late")
    assert {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id")} == {
        "event": "failed", "kind": "feed", "entity": "totals", "cluster": "lake", "instance": "2026-01-01T00:00Z",
        "status": "FAILED", "run_id": "failing"}
    assert notice["rerun"].startswith("spark-submit entrypoints/export.py ")
    assert notifier.counters()["notifications_sent"] == 2
    expected = definition_hash(feed, config.root)
    assert [(e["eventType"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"]) for e in lineage.events] == [
        ("START", expected), ("COMPLETE", expected)]
    assert target_rows(repo) == INSTANCE
