"""The lineage walk over ledgers written with the real Ledger API (the template repo, local clusters): the
producing attempt and its inputs, depth limits, shared inputs met once, changed-since, readers found through the
inverted windows and the replica, and what cannot be traced reported on the node instead of failing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.unit.lineage.ledger_writer import DAY, LedgerWriter, a_day_of_runs, fingerprint, make_repo, utc
from toolkit.core.ledger.batch_records import BatchLog, BatchRecord
from toolkit.core.ledger.records import PublishedOutput, ReadInput, Written
from toolkit.errors import UsageError
from toolkit.views.lineage.graph import READ, WROTE, InstanceNode, Lineage, RunNode
from toolkit.views.lineage.walk import trace_feed, trace_process

T = utc(2026, 11, 21, 10)
ROLLUP = DAY + timedelta(days=1)


@pytest.fixture
def writer(tmp_path: Path) -> LedgerWriter:
    repo, _ = make_repo(tmp_path)
    written = LedgerWriter(repo)
    a_day_of_runs(written)
    return written


def runs(lineage: Lineage) -> list[RunNode]:
    return [node for node in lineage.nodes.values() if isinstance(node, RunNode)]


def instances(lineage: Lineage, feed: str) -> list[str]:
    return sorted(n.time for n in lineage.nodes.values() if isinstance(n, InstanceNode) and n.feed == feed)


def test_upstream_names_the_producing_attempt_and_what_it_read(writer: LedgerWriter) -> None:
    lineage = trace_feed(writer.ledgers(), "clicks-hourly-summary", "primary", T, 1, 0)
    [producer] = lineage.producers(lineage.root)
    run = lineage.nodes[producer.source]
    assert isinstance(run, RunNode)
    assert (run.process, run.time, run.attempt, run.attempt_kind, run.run_id, run.status, producer.name) == (
        "hourly-clicks-summary", "2026-11-21T10:00Z", 1, "RUN", "sum10", "SUCCEEDED", "summary")
    reads = lineage.producers(producer.source)
    assert [(lineage.nodes[e.source].time, e.role, e.name, e.fingerprint, e.since_read) for e in reads] == [
        (f"2026-11-21T{h:02d}:00Z", READ, "clicks", fingerprint(f"clicks21{h:02d}"), "unchanged") for h in (8, 9, 10)]
    # one level: the clicks' own producers are not walked
    assert [r.kind for r in runs(lineage)] == ["process"]


def test_each_level_adds_one_producing_run_and_its_inputs(writer: LedgerWriter) -> None:
    def kinds(up: int) -> list[tuple[str, str | None]]:
        lineage = trace_feed(writer.ledgers(), "top-pages", "primary", DAY, up, 0)
        return sorted({(r.kind, r.process) for r in runs(lineage)}, key=str)

    assert kinds(0) == []
    assert kinds(1) == [("process", "top-pages")]
    assert kinds(2) == [("process", "daily-clicks-rollup"), ("process", "top-pages")]
    assert kinds(3) == [("process", "daily-clicks-rollup"), ("process", "hourly-clicks-summary"),
                        ("process", "top-pages")]
    assert kinds(4) == [("external", None), ("process", "daily-clicks-rollup"),
                        ("process", "hourly-clicks-summary"), ("process", "top-pages")]


def test_inputs_shared_by_overlapping_windows_are_one_node_walked_once(writer: LedgerWriter) -> None:
    lineage = trace_feed(writer.ledgers(), "clicks-daily", "primary", DAY, 3, 0)
    # 24 summaries read 3 hours each: 26 distinct clicks instances, each with its one publisher
    assert len(instances(lineage, "clicks")) == 26
    assert len([r for r in runs(lineage) if r.kind == "external"]) == 26
    assert len([r for r in runs(lineage) if r.process == "hourly-clicks-summary"]) == 24
    assert len(lineage.edges) == len({(e.source, e.target, e.role, e.name) for e in lineage.edges})
    nine = "instance:primary:clicks:2026-11-21T09:00Z"
    assert len(lineage.consumers(nine)) == 3  # read by the summaries of 09, 10 and 11
    assert len(lineage.producers(nine)) == 1
    # the rollup's second output is in the graph beside the one traced
    assert "instance:primary:clicks-daily-table:2026-11-21T00:00Z" in lineage.nodes


def test_an_input_published_again_since_it_was_read_is_changed_and_an_evicted_one_evicted(
        writer: LedgerWriter) -> None:
    writer.publish("clicks", "primary", T - timedelta(hours=1), "external", "late9", "clicks2109-late")
    writer.publish("clicks", "primary", T, "external", "again10", "clicks2110")  # the same content once more
    writer.ledger("primary").record_evictions("clicks", "primary", [(T - timedelta(hours=2), "/data/clicks/08")],
                                              producer="retention", run_id="ret1")
    lineage = trace_feed(writer.ledgers(), "clicks-hourly-summary", "primary", T, 1, 0)
    [producer] = lineage.producers(lineage.root)
    since = {lineage.nodes[e.source].time: e.since_read for e in lineage.producers(producer.source)}
    assert since == {"2026-11-21T08:00Z": "evicted", "2026-11-21T09:00Z": "changed",
                     "2026-11-21T10:00Z": "unchanged"}
    nine = lineage.nodes["instance:primary:clicks:2026-11-21T09:00Z"]
    assert isinstance(nine, InstanceNode)
    assert (nine.state, nine.fingerprint) == ("replaced", fingerprint("clicks2109-late"))


def test_an_input_without_events_is_compared_with_its_files(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    writer = LedgerWriter(repo)
    folder = root / "data/clicks/2026/11/21/10"
    folder.mkdir(parents=True)
    (folder / "part-0.json").write_text("{}\n")
    (folder / "_SUCCESS").write_text("")
    now = writer.ledgers().instance("clicks", "primary", T)
    assert (now.state, now.fingerprint is not None) == ("present", True)
    writer.run("hourly-clicks-summary", T, "r1", {"clicks": ("clicks", [(T, "clicks10")])},
               {"summary": ("clicks-hourly-summary", T)})
    lineage = trace_feed(writer.ledgers(), "clicks-hourly-summary", "primary", T, 2, 0)
    [read] = [e for e in lineage.edges if e.role == READ]
    assert read.since_read == "changed"  # the files differ from what the attempt recorded
    assert lineage.nodes[read.source].notes == ("no dataset event: its files were read",
                                                "no dataset event records who published it here")


def test_downstream_finds_the_readers_of_the_windows_and_the_replica(writer: LedgerWriter) -> None:
    writer.publish("clicks", "backup", T, "replication:primary", "rep10", "clicks2110")
    lineage = trace_feed(writer.ledgers(), "clicks", "primary", T, 0, 1)
    readers = {lineage.nodes[e.target].key: e for e in lineage.consumers(lineage.root)}
    assert sorted(readers) == [
        "run:backup:replication:clicks:2026-11-21T10:00Z:rep10",
        *(f"run:primary:process:hourly-clicks-summary:2026-11-21T{h}:00Z:RUN:1" for h in (10, 11, 12))]
    assert {e.since_read for e in readers.values()} == {"unchanged"}
    written = {lineage.nodes[e.target].key for key in readers for e in lineage.consumers(key)}
    assert "instance:backup:clicks:2026-11-21T10:00Z" in written
    assert "instance:primary:clicks-hourly-summary:2026-11-21T12:00Z" in written
    # two levels: the summaries' reader, the daily rollup, once however many summaries it read
    deeper = trace_feed(writer.ledgers(), "clicks", "primary", T, 0, 2)
    assert [r.process for r in runs(deeper) if r.process == "daily-clicks-rollup"] == ["daily-clicks-rollup"]


def test_readers_that_have_not_run_are_named_in_a_note(writer: LedgerWriter) -> None:
    lineage = trace_feed(writer.ledgers(), "clicks", "primary", DAY + timedelta(hours=23), 0, 1)
    root = lineage.nodes[lineage.root]
    assert root.notes == (
        "process 'hourly-clicks-summary' reads it at 2026-11-22T00:00Z, 2026-11-22T01:00Z, not run yet (no record)",
        "not copied to 'backup' (no replication or import event there)")


def test_upstream_crosses_replication_to_the_source_cluster(writer: LedgerWriter) -> None:
    writer.publish("clicks-hourly-summary", "backup", T, "replication:primary", "rep10", "x")
    repo = writer.repo.root / "feeds/clicks-hourly-summary.yaml"  # the summaries replicated to backup
    repo.write_text(repo.read_text().replace("locations:\n  data:", "  - name: backup\n    type: target\n"
                                             "    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}\n"
                                             "locations:\n  data:"))
    lineage = trace_feed(LedgerWriter(writer.repo.root).ledgers(), "clicks-hourly-summary", "backup", T, 2, 0)
    [copy] = lineage.producers(lineage.root)
    replication = lineage.nodes[copy.source]
    assert isinstance(replication, RunNode)
    assert (replication.kind, replication.cluster, replication.run_id) == ("replication", "backup", "rep10")
    assert replication.notes[0].startswith("no replication record at file://")
    [source] = lineage.producers(copy.source)
    assert (source.source, source.name, source.since_read) == (
        "instance:primary:clicks-hourly-summary:2026-11-21T10:00Z", "primary", "unchanged")
    [made] = lineage.producers(source.source)
    assert made.source == "run:primary:process:hourly-clicks-summary:2026-11-21T10:00Z:RUN:1"
    # the source published again after the copy: the copy may be stale
    writer.publish("clicks-hourly-summary", "primary", T, "process:hourly-clicks-summary", "sum10b", "y")
    again = trace_feed(LedgerWriter(writer.repo.root).ledgers(), "clicks-hourly-summary", "backup", T, 1, 0)
    assert [e.since_read for e in again.edges if e.role == READ] == ["changed"]


def test_what_cannot_be_traced_is_a_note_on_its_node(writer: LedgerWriter) -> None:
    writer.publish("clicks", "backup", T, "replication:ghost,primary", "rep1", "c")
    writer.publish("clicks-daily", "primary", DAY - timedelta(days=1), "process:daily-clicks-rollup", "lost", "d")
    writer.publish("clicks-daily", "primary", DAY - timedelta(days=2), "process:gone-process", "old", "d")
    ledgers = writer.ledgers()
    copy = trace_feed(ledgers, "clicks", "backup", T, 1, 0)
    [run] = runs(copy)
    assert "source cluster 'ghost' is not in the repo" in run.notes
    assert [e.source for e in copy.producers(run.key)] == ["instance:primary:clicks:2026-11-21T10:00Z"]
    lost = trace_feed(ledgers, "clicks-daily", "primary", DAY - timedelta(days=1), 2, 0)
    [run] = runs(lost)
    assert (run.process, run.run_id, run.notes) == (
        "daily-clicks-rollup", "lost", ("no succeeded attempt of run lost is in the ledger",))
    gone = trace_feed(ledgers, "clicks-daily", "primary", DAY - timedelta(days=2), 2, 0)
    assert runs(gone)[0].notes == ("process 'gone-process' is not in the repo",)
    never = trace_feed(ledgers, "clicks-daily", "primary", DAY - timedelta(days=3), 2, 1)
    assert never.nodes[never.root].notes[0] == "no dataset event: its files were read"
    assert "no dataset event records who published it here" in never.nodes[never.root].notes


def test_a_cluster_whose_ledger_cannot_be_read_is_refused_at_the_start_and_noted_further_on(
        writer: LedgerWriter) -> None:
    backup = writer.repo.root / "clusters/backup.yaml"
    backup.write_text(backup.read_text().replace("endpoint: file://", "endpoint: hdfs://nn:8020", 2).replace(
        "hdfs://nn:8020" + str(writer.repo.root.parent / "backup"), "hdfs://nn:8020"))
    ledgers = LedgerWriter(writer.repo.root).ledgers()
    with pytest.raises(UsageError, match="cluster 'backup' interfaces.readonly.endpoint 'hdfs://nn:8020' is not a "
                                         "WebHDFS address"):
        trace_feed(ledgers, "clicks", "backup", T, 1, 1)
    lineage = trace_feed(ledgers, "clicks", "primary", T, 0, 1)
    note = [n for n in lineage.nodes[lineage.root].notes if "backup" in n]
    assert note and note[0].startswith("its copy on 'backup' is not traced: The cluster 'backup' interfaces.readonly")


def test_a_process_instance_as_the_start_shows_its_inputs_and_outputs_then_walks(writer: LedgerWriter) -> None:
    lineage = trace_process(writer.ledgers(), "daily-clicks-rollup", "primary", ROLLUP, 1, 1)
    assert lineage.root == "run:primary:process:daily-clicks-rollup:2026-11-22T00:00Z:RUN:1"
    assert len(lineage.producers(lineage.root)) == 24
    assert sorted(lineage.nodes[e.target].key for e in lineage.consumers(lineage.root)) == [
        "instance:primary:clicks-daily-table:2026-11-21T00:00Z", "instance:primary:clicks-daily:2026-11-21T00:00Z"]
    assert {r.process for r in runs(lineage)} == {"daily-clicks-rollup", "hourly-clicks-summary", "top-pages"}
    assert all(e.role in (READ, WROTE) for e in lineage.edges)


@pytest.mark.parametrize(("call", "message"), [
    (lambda ledgers: trace_feed(ledgers, "clicks", "primary", utc(2026, 11, 21, 10, 30), 1, 1),
     "2026-11-21T10:30Z is not an instance of feed 'clicks' on cluster 'primary'; the nearest"),
    (lambda ledgers: trace_feed(ledgers, "nope", "primary", T, 1, 1), "Unknown feed 'nope'"),
    (lambda ledgers: trace_feed(ledgers, "clicks", "nope", T, 1, 1), "Unknown cluster 'nope'"),
    (lambda ledgers: trace_feed(ledgers, "top-pages", "backup", T, 1, 1), "not defined on cluster 'backup'"),
    (lambda ledgers: trace_process(ledgers, "nope", "primary", T, 1, 1), "Unknown process 'nope'"),
    (lambda ledgers: trace_process(ledgers, "daily-clicks-rollup", "primary", T, 1, 1),
     "is not an instance of process 'daily-clicks-rollup' on cluster 'primary'"),
])
def test_bad_starts_are_one_sentence(writer: LedgerWriter, call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        call(writer.ledgers())


def test_a_batch_consumers_output_is_traced_to_the_events_of_its_batch(writer: LedgerWriter) -> None:
    (writer.repo.root / "processes/clicks-batch.yaml").write_text(
        "kind: process\nname: clicks-batch\nclusters:\n  - name: primary\n"
        "    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}\ntrigger: {on: data}\n"
        "inputs:\n  - {name: clicks, feed: clicks}\noutputs:\n  - {name: daily, feed: clicks-daily}\n"
        "workflow: {engine: pyspark, path: workflows/hourly_clicks_summary.py}\n")
    writer = LedgerWriter(writer.repo.root)
    ledger = writer.ledger("primary")
    consumed = [ledger.events("clicks", T)[-1], ledger.events("clicks", T + timedelta(hours=1))[-1]]
    writer.publish("clicks", "primary", T + timedelta(hours=1), "external", "again11", "clicks2111-late")
    day = DAY - timedelta(days=1)
    output = {"name": "daily", "feed": "clicks-daily", "time": "2026-11-20T00:00Z", "path": "/data/clicks-daily",
              "files": 1, "bytes": 1, "replaced": False}
    for seq, run_id in ((1, "b0"), (2, "b1")):
        BatchLog(ledger, "clicks-batch").write(BatchRecord(
            "clicks-batch", "primary", seq, 1, run_id, "SUCCEEDED", "2026-11-22T13:00:00Z", "2026-11-22T13:00:00Z",
            events=[e.event_id for e in consumed], outputs=Written(PublishedOutput, [output]),
            inputs=Written(ReadInput, [{"name": "clicks", "feed": "clicks", "instances": [
                {"time": e.time, "event_id": e.event_id, "location": e.location} for e in consumed]}])))
    writer.publish("clicks-daily", "primary", day, "process:clicks-batch", "b1", "daily-batch")
    lineage = trace_feed(writer.ledgers(), "clicks-daily", "primary", day, 1, 0)
    [run] = runs(lineage)
    assert (run.process, run.run_id, run.attempt_kind, run.status) == ("clicks-batch", "b1", "BATCH 2", "SUCCEEDED")
    assert {lineage.nodes[e.source].time: e.since_read for e in lineage.producers(run.key)} == {
        "2026-11-21T10:00Z": "unchanged", "2026-11-21T11:00Z": "changed"}
    down = trace_feed(writer.ledgers(), "clicks", "primary", T, 0, 1)
    assert "batch consumer 'clicks-batch' reads it by batches, not traced here: `toolkit queue` shows which batch " \
           "holds it" in down.nodes[down.root].notes


def test_a_hive_import_is_traced_to_the_feeds_source_clusters_in_the_repo(writer: LedgerWriter) -> None:
    writer.publish("visits", "backup", DAY, "hive-import", "imp1", "visits21")
    lineage = trace_feed(writer.ledgers(), "visits", "backup", DAY, 1, 0)
    [run] = runs(lineage)
    assert (run.kind, run.run_id, run.notes) == (
        "hive-import", "imp1", ("an import records no source: the feed's source clusters in the repo are shown",))
    [source] = lineage.producers(run.key)
    primary = lineage.nodes[source.source]
    assert isinstance(primary, InstanceNode)
    assert (primary.cluster, primary.state, source.since_read) == ("primary", "unknown", "unknown")
    assert primary.notes == ("no dataset event; a table partition is not read without the metastore",)
