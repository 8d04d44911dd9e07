"""OpenLineage events of Hive export and import (a table feed `sessions` on primary and backup, both in the
test session's own catalog): the export reads the feed's dataset on primary (the partition, with the
fingerprint its event recorded) and writes the export folder's dataset; the import reads that folder and writes
the feed's dataset on backup (the partition as imported, its fingerprint, files and bytes); an export of a
partition that does not exist yet emits nothing."""

from __future__ import annotations

import itertools
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.openlineage.lineage_setup import instances, lineage_to, names, valid_events
from tests.integration.replication.hive_feed import sessions_feed
from tests.lineage_receiver import lineage_receiver
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.replication.hive.runner import HIVE_EXPORT, plan_hive_import, run_hive_export, run_hive_import
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.errors import WaitingError
from toolkit.services.runtime.lifecycle import FeedCall
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21)
FINGERPRINT = Fingerprint("d1", 1, 100)
_names = itertools.count()
DAILY = "ds=${YEAR}-${MONTH}-${DAY}"


def test_an_export_then_its_import_emit_their_runs(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, _ = make_repo(tmp_path)
    database = f"lineage_hive_{next(_names)}"
    (repo / "feeds" / "sessions.yaml").write_text(sessions_feed(f"catalog:{database}:src#{DAILY}",
                                                                f"catalog:{database}:dst#{DAILY}"))
    spark.sql(f"CREATE DATABASE {database} LOCATION '{(tmp_path / 'warehouse').as_uri()}'")
    spark.sql(f"CREATE TABLE {database}.src (id INT, name STRING) PARTITIONED BY (ds STRING) STORED AS PARQUET")
    partition = tmp_path / "src" / "day1"  # files the export copies and never reads
    partition.mkdir(parents=True)
    (partition / "part-00000.parquet").write_bytes(b"not really parquet")
    spark.sql(f"ALTER TABLE {database}.src ADD PARTITION (ds = '2026-11-21') LOCATION '{partition.as_uri()}'")
    config, fs = ConfigRepo.load(repo), HadoopFileSystem(spark)
    feed, primary, backup = config.feed("sessions"), config.cluster("primary"), config.cluster("backup")
    Ledger.of(fs, primary).record_publication(PublicationFacts("sessions", "primary", T, producer="external",
                                                               run_id="x", location=f"{database}.src/ds=2026-11-21",
                                                               fingerprint=FINGERPRINT))
    export = (tmp_path / "export").as_uri()
    with lineage_receiver() as receiver, catalog_for(spark, None) as catalog:
        exporting = lineage_to(receiver.url, repo, "e1")
        with pytest.raises(WaitingError):
            run_hive_export(spark, FeedCall.of(HIVE_EXPORT, config, feed, primary, T + timedelta(days=1)), export,
                            RunContext(fs, catalog=catalog, lineage=exporting))
        exported = run_hive_export(spark, FeedCall.of(HIVE_EXPORT, config, feed, primary, T), export,
                                   RunContext(fs, catalog=catalog, lineage=exporting))
        plan = plan_hive_import(fs, feed, backup, export, None)
        imported = run_hive_import(spark, config, feed, backup, plan, RunContext(
            fs, "i1", catalog=catalog, lineage=lineage_to(receiver.url, repo, "i1", cluster="backup")))
    events = valid_events(receiver)
    assert [(e["eventType"], e["job"]["namespace"], e["job"]["name"]) for e in events] == [
        ("START", "feed-toolkit.primary", "hive-export.sessions"),
        ("COMPLETE", "feed-toolkit.primary", "hive-export.sessions"),
        ("START", "feed-toolkit.backup", "hive-import.sessions"),
        ("COMPLETE", "feed-toolkit.backup", "hive-import.sessions")]
    export_path = str(tmp_path / "export")
    _, done, _, loaded = events
    assert done["run"]["facets"]["nominalTime"]["nominalStartTime"] == "2026-11-21T00:00:00.000Z"
    [table] = done["inputs"]
    assert names([table]) == [("hive://127.0.0.1:9083", f"{database}.src")]
    assert table["inputFacets"]["subset"]["inputCondition"] == {"type": "partition", "partitions": [
        {"dimensions": {"ds": "2026-11-21"}, "identifier": f"{database}.src/ds=2026-11-21"}]}
    assert instances(table, "inputFacets") == [{"time": "2026-11-21T00:00Z", "fingerprint": FINGERPRINT.to_json(),
                                                "location": f"{database}.src/ds=2026-11-21"}]
    [folder] = done["outputs"]
    assert names([folder]) == [("file", export_path)]
    assert instances(folder) == [{"time": "2026-11-21T00:00Z", "location": f"file://{export_path}"}]
    assert (folder["outputFacets"]["outputStatistics"]["fileCount"],
            folder["outputFacets"]["outputStatistics"]["size"]) == (exported.files, exported.bytes)

    assert loaded["run"]["facets"]["feedToolkit_run"]["runId"] == "i1"
    assert names(loaded["inputs"]) == [("file", export_path)]
    [imported_to] = loaded["outputs"]
    assert names([imported_to]) == [("hive://127.0.0.1:9084", f"{database}.dst")]  # backup's metastore
    [event] = Ledger.of(fs, backup).events("sessions", T)
    assert instances(imported_to) == [{"time": "2026-11-21T00:00Z", "location": f"{database}.dst/ds=2026-11-21",
                                     "fingerprint": event.fingerprint.to_json()}]
    assert (imported_to["outputFacets"]["outputStatistics"]["fileCount"],
            imported_to["outputFacets"]["outputStatistics"]["size"]) == (imported.files, imported.bytes) == (1, 18)
    # Every run, and the import's dataset event, name the definition of the feed that ran (the same file on both
    # clusters).
    expected = definition_hash(feed, config.root)
    assert [e["run"]["facets"]["feedToolkit_run"]["definitionHash"] for e in events] == [expected] * 4
    assert event.producer == "hive-import" and event.definition is not None
    assert event.definition.definition == expected
