"""OpenLineage events of ingest (the delimited feed `events` of tests/unit/ingest/ingest_repo.py) in the test
SparkSession: a micro-batch that fails to commit is a FAIL; Spark replays it in the next run, which commits it:
START and COMPLETE under the same parent (the batch), the feed's dataset as output with the instances written
into, the records committed, the files and their bytes; a batch whose records are all rejected emits nothing.
A compaction reads the instance and writes it again (its fingerprints before and after, rows, files, bytes)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.integration.ingest.landing import drop, drop_first_two
from tests.integration.openlineage.lineage_setup import instances, lineage_to, names, valid_events
from tests.lineage_receiver import lineage_receiver
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest import runner
from toolkit.actions.ingest.compaction import compact_instance, compaction_call
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.errors import SkippedError
from toolkit.services.runtime.run_context import RunContext


def test_each_committed_batch_is_a_run_and_a_failed_one_a_fail(spark, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    fs = HadoopFileSystem(spark)
    real = runner.commit_batch

    def broken(*args: object, **kwargs: object) -> None:
        raise StorageError("the file system refused the batch")

    with lineage_receiver() as receiver:
        monkeypatch.setattr(runner, "commit_batch", broken)
        with pytest.raises(StorageError):
            run_ingest(spark, repo, "events", "primary",
                       RunContext(fs, run_id="run1", lineage=lineage_to(receiver.url, repo)))
        monkeypatch.setattr(runner, "commit_batch", real)
        result = run_ingest(spark, repo, "events", "primary",
                            RunContext(fs, run_id="run2", lineage=lineage_to(receiver.url, repo, "run2")))
        assert (result.replayed, result.batches, result.records) == (0, 1, 4)
        drop(root, "c.csv", ["bad line"])  # every record rejected: nothing of the feed written
        assert run_ingest(spark, repo, "events", "primary",
                          RunContext(fs, run_id="run3", lineage=lineage_to(receiver.url, repo, "run3"))).rejected == 1
    events = valid_events(receiver)
    assert [e["eventType"] for e in events] == ["START", "FAIL", "START", "COMPLETE"]
    assert {(e["job"]["namespace"], e["job"]["name"]) for e in events} == {("feed-toolkit.primary", "ingest.events")}
    assert "the file system refused the batch" in events[1]["run"]["facets"]["errorMessage"]["message"]
    instance = events[0]["run"]["facets"]["feedToolkit_run"]["instance"]
    assert instance == f"{result.epoch}-0000000000"
    assert {e["run"]["facets"]["parent"]["run"]["runId"] for e in events} == \
        {events[0]["run"]["facets"]["feedToolkit_run"]["instanceRunId"]}  # the batch, failed then replayed
    assert len({e["run"]["runId"] for e in events}) == 2
    complete = events[-1]
    assert complete["inputs"] == []
    [written] = complete["outputs"]
    assert names([written]) == [("file", f"{root}/data/events")]
    hours = [f"file://{root}/data/events/2026/01/01/{h}" for h in (10, 11, 12)]
    assert [i["location"] for i in instances(written)] == hours
    assert [i["time"] for i in instances(written)] == [f"2026-01-01T{h}:00Z" for h in (10, 11, 12)]
    files = [p for h in (10, 11, 12) for p in (root / f"data/events/2026/01/01/{h}").iterdir()
             if not p.name.startswith((".", "_"))]
    statistics = written["outputFacets"]["outputStatistics"]
    assert (statistics["rowCount"], statistics["fileCount"], statistics["size"]) == (
        4, 3, sum(p.stat().st_size for p in files))


def test_a_compaction_reads_and_writes_the_instance_again(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    fs, ten = HadoopFileSystem(spark), datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
    folder = root / "data/events/2026/01/01/10"  # two batch files and the flag, as ingest closes an hour
    (spark.createDataFrame([("2026-01-01T10:05:00Z", "u1", "/home", 12), ("2026-01-01T10:20:00Z", "u2", "/", 3)],
                           "ts string, user string, page string, ms int")
     .repartition(2).write.parquet(folder.as_uri()))
    ledger = Ledger.of(fs, repo.cluster("primary"))
    published = ledger.record_publication(PublicationFacts("events", "primary", ten, producer="ingest", run_id="i",
                                                           location=f"file://{folder}",
                                                           fingerprint=Fingerprint("before", 2, 15)))
    assert published is not None
    with lineage_receiver() as receiver:
        compacted = compact_instance(spark, compaction_call(repo, "events", "primary", ten),
                                     RunContext(fs, run_id="c1", lineage=lineage_to(receiver.url, repo, "c1")))
        with pytest.raises(SkippedError):  # one file now: nothing to compact, nothing emitted
            compact_instance(spark, compaction_call(repo, "events", "primary", ten),
                             RunContext(fs, run_id="c2", lineage=lineage_to(receiver.url, repo, "c2")))
    events = valid_events(receiver)
    assert [(e["eventType"], e["job"]["name"]) for e in events] == [("START", "compact.events"),
                                                                     ("COMPLETE", "compact.events")]
    complete = events[1]
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"] == "2026-01-01T10:00:00.000Z"
    assert names(complete["inputs"]) == names(complete["outputs"]) == [("file", f"{root}/data/events")]
    assert instances(complete["inputs"][0], "inputFacets") == [
        {"time": "2026-01-01T10:00Z", "location": f"file://{folder}",
         "fingerprint": {"digest": "before", "files": 2, "bytes": 15}}]
    event = ledger.events("events", ten)[-1]
    assert (event.kind, event.producer) == ("replaced", "compaction")
    assert instances(complete["outputs"][0]) == [
        {"time": "2026-01-01T10:00Z", "location": f"file://{folder}", "fingerprint": event.fingerprint.to_json()}]
    statistics = complete["outputs"][0]["outputFacets"]["outputStatistics"]
    record = compacted.record
    assert (statistics["rowCount"], statistics["fileCount"], statistics["size"]) == (
        2, 1, record.bytes_after) and record.files_after == 1
