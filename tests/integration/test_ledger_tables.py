"""The ledger as tables (toolkit/actions/ledger_tables/tables.py): a small ledger written through the ledger's own API
(instances and attempts, dataset events, a consumer's plans and commits, batch records), its tables registered
in the test session's metastore, and the rows SQL reads from them, the example query of docs/ledger.md
included; registering again after new records refreshes them; a foreign table of one of the names is refused
and kept. One spark-submit run of the entrypoint registers them in a Thrift metastore."""

from __future__ import annotations

import json
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.integration.spark_submit import spark_submit
from toolkit.actions.ledger_tables.tables import ledger_database, register
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.batch_records import BatchLog, BatchRecord
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import (
    AttemptRecord,
    InstanceRecord,
    PublicationFacts,
    PublishedOutput,
    ReadInput,
    Written,
)
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError

UTC = timezone.utc
BASE = datetime(2026, 11, 21, 8, tzinfo=UTC)
PRINT = Fingerprint("d1", 1, 10)

# The example query of docs/ledger.md, "The ledger as tables" (its database and times filled in).
EXAMPLE = """
SELECT e.time, e.event_id, p.process, p.seq, c.run_id, c.committed
FROM {db}.plans p
JOIN {db}.commits c ON c.process = p.process AND c.seq = p.seq
LATERAL VIEW explode(p.events) x AS e
WHERE e.feed = 'clicks' AND e.time >= '{start}' AND e.time < '{end}'
ORDER BY e.time, p.process
"""


def repo_with(folder: Path, root: Path, database: str, registry: str | None = None) -> ConfigRepo:
    (folder / "clusters").mkdir(parents=True)
    registry_line = f'\n  registry: {{endpoint: "{registry}", version: "3.1"}}' if registry else ""
    (folder / "clusters" / "primary.yaml").write_text(textwrap.dedent(f"""\
        kind: cluster
        name: primary
        interfaces:
          write: {{endpoint: "file://{root}", version: "3.4"}}""") + registry_line + textwrap.dedent(f"""
        locations: {{working: /working}}
        properties: {{ledger.database: {database}}}
        """))
    return ConfigRepo.load(folder)


def stamp(hours: int) -> str:
    return f"{BASE + timedelta(hours=hours):%Y-%m-%dT%H:%MZ}"


def publish(ledger: Ledger, hours: int, run_id: str) -> str:
    event = ledger.record_publication(PublicationFacts("clicks", "primary", BASE + timedelta(hours=hours),
                                                       producer="external", run_id=run_id,
                                                       location=f"file:///d/clicks/{hours}", fingerprint=PRINT))
    assert event is not None
    return event.event_id


def consume(ledger: Ledger, sweep: str, run_id: str) -> int:
    """A sweep plans every pending clicks event; run `run_id` claims the plan and commits it."""
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    outcome = queue.create_plan(sweep)
    assert outcome is not None and outcome.created
    claim = queue.claim(run_id, outcome.plan.seq)
    assert claim is not None
    queue.commit(claim)
    queue.release(claim)
    return outcome.plan.seq


def write_ledger(cluster: Cluster) -> tuple[Ledger, dict[int, str]]:
    """Process `hourly` at 10:00 (a failed attempt, then a success), clicks 08:00 to 10:00 published, plan 1
    (08:00 and 09:00) consumed by run-a, plan 2 (10:00) by run-b, loader's batch record of plan 1, and
    retention run `ret` evicting clicks 07:00 and 08:00 (ids -1 and -2)."""
    ledger = Ledger.of(LocalFileSystem(), cluster)
    ids = {hours: publish(ledger, hours, f"producer{hours}") for hours in (0, 1)}
    assert consume(ledger, "sweep-1", "run-a") == 1
    ids[2] = publish(ledger, 2, "producer2")
    assert consume(ledger, "sweep-2", "run-b") == 2
    for attempt, status in ((1, "FAILED"), (2, "SUCCEEDED")):
        ledger.write_attempt(AttemptRecord(
            process="hourly", cluster="primary", time=stamp(2), attempt=attempt, run_id=f"hourly-{attempt}",
            kind="RUN", status=status, started="2026-11-22T10:00:00Z", ended="2026-11-22T10:01:00Z",
            error="boom" if status == "FAILED" else None, counters={"workflow_seconds": 1.5}))
    ledger.write_instance(InstanceRecord(
        process="hourly", cluster="primary", time=stamp(2), status="SUCCEEDED", attempts=2, run_id="hourly-2",
        updated="2026-11-22T10:01:00Z", succeeded="2026-11-22T10:01:00Z",
        outputs=Written(PublishedOutput, [{"name": "out", "feed": "summary", "time": stamp(2),
                                           "path": "file:///d/summary/10", "files": 1, "bytes": 5,
                                           "replaced": False}])))
    BatchLog(ledger, "loader").write(BatchRecord(
        process="loader", cluster="primary", seq=1, attempt=1, run_id="run-a", status="SUCCEEDED",
        started="2026-11-22T10:02:00Z", ended="2026-11-22T10:03:00Z", events=[ids[0], ids[1]],
        inputs=Written(ReadInput, [{"name": "clicks", "feed": "clicks", "instances": [
            {"time": stamp(h), "event_id": ids[h], "location": f"file:///d/clicks/{h}"} for h in (0, 1)]}])))
    batch = ledger.record_evictions("clicks", "primary", [(BASE + timedelta(hours=h), f"file:///d/clicks/{h}")
                                                          for h in (-1, 0)], producer="retention", run_id="ret")
    assert batch is not None
    ids[-1], ids[-2] = (e.event_id for e in batch.events())
    return ledger, ids


def rows(spark, sql: str) -> list[tuple]:
    return [tuple(row) for row in spark.sql(sql).collect()]


def register_here(spark, cluster: Cluster) -> dict[str, str]:
    from toolkit.core.storage.catalog_spark import SparkCatalog
    from toolkit.core.storage.session_sql import run_ddl

    return register(SparkCatalog(spark), lambda sql, subject: run_ddl(spark, sql, subject),
                    ledger_database(cluster), LedgerLayout.of(cluster).root)


def test_the_ledger_read_as_tables_and_the_example_query(spark, tmp_path: Path) -> None:
    cluster = repo_with(tmp_path / "repo", tmp_path / "root", "ledger_read").cluster("primary")
    ledger, ids = write_ledger(cluster)

    assert register_here(spark, cluster) == dict.fromkeys(
        ("instances", "attempt_records", "batches", "event_files", "eviction_batches", "queue_records", "events",
         "attempts", "batch_attempts", "plans", "commits"), "created")

    db = "ledger_read"
    committed = ConsumerQueue(ledger, "loader", ["clicks"]).commit_of(1)
    assert committed is not None
    assert rows(spark, EXAMPLE.format(db=db, start=stamp(0), end=stamp(2))) == [
        (stamp(0), ids[0], "loader", 1, "run-a", committed.committed),
        (stamp(1), ids[1], "loader", 1, "run-a", committed.committed)]
    assert [r[:5] for r in rows(spark, EXAMPLE.format(db=db, start=stamp(1), end=stamp(3)))] == [
        (stamp(1), ids[1], "loader", 1, "run-a"), (stamp(2), ids[2], "loader", 2, "run-b")]
    assert rows(spark, f"SELECT event_id, feed, cluster, time, kind, producer, run_id, location, fingerprint.digest, "
                       f"format_version FROM {db}.events ORDER BY event_id") == sorted([
        *((ids[h], "clicks", "primary", stamp(h), "published", "external", f"producer{h}", f"file:///d/clicks/{h}",
           "d1", 2) for h in (0, 1, 2)),
        *((ids[-1 - k], "clicks", "primary", stamp(h), "evicted", "retention", "ret", f"file:///d/clicks/{h}", None, 1)
          for k, h in enumerate((-1, 0)))])
    assert rows(spark, f"SELECT process, time, status, attempts, run_id, outputs[0].feed, outputs[0].bytes "
                       f"FROM {db}.instances") == [("hourly", stamp(2), "SUCCEEDED", 2, "hourly-2", "summary", 5)]
    assert rows(spark, f"SELECT process, time, attempt, run_id, kind, status, error, counters['workflow_seconds'] "
                       f"FROM {db}.attempts ORDER BY attempt") == [
        ("hourly", stamp(2), 1, "hourly-1", "RUN", "FAILED", "boom", 1.5),
        ("hourly", stamp(2), 2, "hourly-2", "RUN", "SUCCEEDED", None, 1.5)]
    batch = ("loader", 1, 1, "run-a", "SUCCEEDED", [ids[0], ids[1]], [ids[0], ids[1]])
    assert rows(spark, f"SELECT process, seq, attempt, run_id, status, events, "
                       f"transform(inputs[0].instances, i -> i.event_id) FROM {db}.batch_attempts") == [batch]
    assert rows(spark, f"SELECT process, seq, attempt, run_id, status, events, "
                       f"transform(inputs[0].instances, i -> i.event_id) FROM {db}.batches") == [batch]
    assert rows(spark, f"SELECT process, seq, run_id, transform(events, e -> e.event_id) FROM {db}.plans "
                       f"ORDER BY seq") == [("loader", 1, "sweep-1", [ids[0], ids[1]]),
                                             ("loader", 2, "sweep-2", [ids[2]])]
    assert rows(spark, f"SELECT process, seq, run_id FROM {db}.commits ORDER BY seq") == [
        ("loader", 1, "run-a"), ("loader", 2, "run-b")]


def test_registering_again_refreshes_and_shows_new_records(spark, tmp_path: Path) -> None:
    cluster = repo_with(tmp_path / "repo", tmp_path / "root", "ledger_again").cluster("primary")
    ledger, ids = write_ledger(cluster)
    register_here(spark, cluster)
    query = EXAMPLE.format(db="ledger_again", start=stamp(0), end=stamp(9))
    assert [r[4] for r in rows(spark, query)] == ["run-a", "run-a", "run-b"]

    ids[3] = publish(ledger, 3, "producer3")
    assert consume(ledger, "sweep-3", "run-c") == 3

    assert set(register_here(spark, cluster).values()) == {"refreshed"}
    assert [(r[1], r[3], r[4]) for r in rows(spark, query)] == [
        (ids[0], 1, "run-a"), (ids[1], 1, "run-a"), (ids[2], 2, "run-b"), (ids[3], 3, "run-c")]
    assert rows(spark, "SELECT count(*) FROM ledger_again.events") == [(6,)]  # 4 published, 2 evicted

    # A table of ours of another definition (an older toolkit's) is replaced; the records stay.
    spark.sql("ALTER TABLE ledger_again.event_files SET TBLPROPERTIES ('feed-toolkit.ledger-definition' = 'older')")
    assert register_here(spark, cluster)["event_files"] == "replaced"
    assert rows(spark, "SELECT count(*) FROM ledger_again.events") == [(6,)]
    assert len(list((tmp_path / "root" / "working" / "ledger" / "events" / "clicks").rglob("*.json"))) == 4
    # `events` was a table of the event files before batches of evictions: that table becomes the view
    spark.sql("DROP VIEW ledger_again.events")
    root = LedgerLayout.of(cluster).root
    spark.sql(f"CREATE TABLE ledger_again.events (event_id string) USING json OPTIONS (recursiveFileLookup "
              f"'true', pathGlobFilter '*.json') LOCATION '{root}/events' TBLPROPERTIES "
              f"('feed-toolkit.ledger-table' = 'events', 'feed-toolkit.ledger-definition' = 'older')")
    assert register_here(spark, cluster)["events"] == "replaced"
    assert rows(spark, "SELECT count(*) FROM ledger_again.events") == [(6,)]
    assert len(list((tmp_path / "root" / "working" / "ledger" / "events" / "clicks").rglob("*.json"))) == 4


def test_a_foreign_table_of_the_same_name_is_refused_and_kept(spark, tmp_path: Path) -> None:
    cluster = repo_with(tmp_path / "repo", tmp_path / "root", "ledger_foreign").cluster("primary")
    write_ledger(cluster)
    spark.sql("CREATE DATABASE ledger_foreign")
    spark.sql("CREATE TABLE ledger_foreign.commits (mine string) USING parquet")
    spark.sql("INSERT INTO ledger_foreign.commits VALUES ('kept')")

    with pytest.raises(UsageError, match=r"^The table ledger_foreign.commits exists and is not a ledger table of "
                                         r"feed-toolkit .*ledger\.database"):
        register_here(spark, cluster)

    assert rows(spark, "SELECT mine FROM ledger_foreign.commits") == [("kept",)]
    tables = [row for row in rows(spark, "SHOW TABLES IN ledger_foreign") if not row[2]]  # not other tests' views
    assert tables == [("ledger_foreign", "commits", False)]


def test_in_safemode_nothing_is_registered_exit_5(spark, tmp_path: Path, monkeypatch, capsys) -> None:
    from toolkit.actions.ledger_tables.ledger_tables_entry import main
    from toolkit.core.ledger.control import Control

    repo = repo_with(tmp_path / "repo", tmp_path / "root", "ledger_safemode")
    cluster = repo.cluster("primary")
    write_ledger(cluster)
    Control(LocalFileSystem(), LedgerLayout.of(cluster)).set_safemode(True, "2026-11-22T10:00:00Z", "test")
    monkeypatch.setattr("sys.argv", ["ledger_tables.py", "--repo", str(tmp_path / "repo"), "--cluster", "primary"])

    assert main() == 5
    assert "safemode" in capsys.readouterr().err
    assert rows(spark, "SHOW DATABASES LIKE 'ledger_safemode'") == []


@pytest.mark.jvm
def test_the_entrypoint_registers_the_tables_in_the_clusters_metastore(spark, thrift_metastore,
                                                                      tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo", tmp_path / "root", "ledger_submit", registry=thrift_metastore.uri)
    write_ledger(repo.cluster("primary"))

    done = spark_submit("ledger_tables", "--repo", str(tmp_path / "repo"), "--cluster", "primary", cwd=tmp_path)

    assert done.returncode == 0, done.stdout[-3000:]
    status = json.loads(done.stdout.strip().splitlines()[-1])
    assert (status["status"], status["database"], status["tables"]["plans"]) == (
        "SUCCEEDED", "ledger_submit", "created")
    raw = thrift_metastore.client(spark)
    events = raw.table("ledger_submit", "event_files")
    assert (str(events.getTableType()), str(events.getParameters().get("feed-toolkit.ledger-table")),
            str(events.getParameters().get("spark.sql.sources.provider"))) == ("EXTERNAL_TABLE", "event_files",
                                                                               "json")
    # Spark keeps a data-source table's place in its `path` (the Hive location is a placeholder of Spark's).
    place = str(events.getSd().getSerdeInfo().getParameters().get("path"))
    assert place.replace("file:///", "file:/") == (LedgerLayout.of(repo.cluster("primary")).root + "/events").replace(
        "file:///", "file:/")
    assert str(raw.table("ledger_submit", "plans").getTableType()) == "VIRTUAL_VIEW"

    # A second registration reads our marks back through the Thrift catalog: everything is refreshed, nothing
    # dropped (the statements are only collected here: this session's SQL goes to its own metastore).
    from toolkit.core.storage.catalog_thrift import ThriftCatalog

    ran: list[str] = []
    with ThriftCatalog(spark, thrift_metastore.uri) as catalog:
        again = register(catalog, lambda sql, subject: ran.append(sql), "ledger_submit",
                         LedgerLayout.of(repo.cluster("primary")).root)
    assert set(again.values()) == {"refreshed"}
    assert ran == [f"REFRESH TABLE `ledger_submit`.`{name}`" for name in
                   ("instances", "attempt_records", "batches", "event_files", "eviction_batches", "queue_records")]
