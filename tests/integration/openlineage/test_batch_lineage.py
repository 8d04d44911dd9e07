"""OpenLineage events of a batch consumer's batches (tests/integration/process_runner/batch_consumer.py) in the
test SparkSession: a batch failing twice (FAIL per attempt) and replayed (START, COMPLETE), one run per attempt
under the batch's parent; its inputs the batch's instances with the fingerprints their events recorded, its
output the snapped instance with its statistics and fingerprint."""

from __future__ import annotations

from pathlib import Path

from tests.integration.openlineage.lineage_setup import instances, lineage_to, names, valid_events
from tests.integration.process_runner.batch_consumer import NAME, location, publish, write_batch_consumer
from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.lineage_receiver import lineage_receiver
from toolkit.actions.process_runner.batch_runner import BatchRunner
from toolkit.actions.process_runner.run_results import RunOptions
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import PublicationFacts

T = utc(2026, 11, 21, 8)
FINGERPRINT = Fingerprint("d1", 1, 42)


def batch_runner(spark, repo: Path, run_id: str, url: str) -> BatchRunner:  # type: ignore[no-untyped-def]
    runner = new_runner(spark, repo, NAME, TestClock(utc(2026, 11, 22, 12)), RunOptions(max_retry_delay=0),
                        run_id=run_id, lineage=lineage_to(url, repo, run_id))
    return BatchRunner(runner)


def test_a_batch_emits_a_run_per_attempt_with_its_instances_and_fingerprints(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path)
    (tmp_path / "fail").write_text("")
    with lineage_receiver() as receiver:
        first = batch_runner(spark, repo, "run1", receiver.url)
        write_clicks(root, T, 1)
        first.runner.ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external",
                                                                run_id="test", location=location(root, "clicks", T),
                                                                fingerprint=FINGERPRINT))
        publish(first.runner.ledger, root, "clicks-hourly-summary", T)
        assert first.run().status == "FAILED"  # two attempts
        (tmp_path / "fail").unlink()
        assert batch_runner(spark, repo, "run2", receiver.url).run().status == "SUCCEEDED"
    events = valid_events(receiver)
    assert [e["eventType"] for e in events] == ["START", "FAIL", "START", "FAIL", "START", "COMPLETE"]
    assert {e["job"]["name"] for e in events} == {f"process.{NAME}"}
    assert len({e["run"]["runId"] for e in events}) == 3  # one run per attempt
    facets = [e["run"]["facets"]["feedToolkit_run"] for e in events]
    assert {(f["instance"], f["instanceRunId"]) for f in facets} == {("batch-1", facets[0]["instanceRunId"])}
    assert {e["run"]["facets"]["parent"]["run"]["runId"] for e in events} == {facets[0]["instanceRunId"]}
    assert [f["attempt"] for f in facets[::2]] == [1, 2, 3]
    assert "asked to fail" in events[1]["run"]["facets"]["errorMessage"]["message"]
    complete = events[-1]
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"] == "2026-11-21T08:00:00.000Z"
    assert names(complete["inputs"]) == [("file", f"{root}/data/clicks"),
                                         ("file", f"{root}/data/clicks-hourly-summary")]
    clicks, summary = complete["inputs"]
    assert instances(clicks, "inputFacets") == [
        {"time": "2026-11-21T08:00Z", "location": location(root, "clicks", T), "fingerprint": FINGERPRINT.to_json()}]
    assert instances(summary, "inputFacets") == [
        {"time": "2026-11-21T08:00Z", "location": location(root, "clicks-hourly-summary", T)}]  # none recorded
    assert clicks["inputFacets"]["subset"]["inputCondition"] == {"type": "location",
                                                                 "locations": [location(root, "clicks", T)]}
    [daily] = complete["outputs"]
    assert names([daily]) == [("file", f"{root}/data/clicks-daily")]
    folder = root / "data" / "clicks-daily" / "2026" / "11" / "21"
    [event] = first.runner.ledger.events("clicks-daily", utc(2026, 11, 21))
    assert instances(daily) == [{"time": "2026-11-21T00:00Z", "location": f"file://{folder}",
                                 "fingerprint": event.fingerprint.to_json()}]
    files = [p for p in folder.iterdir() if not p.name.startswith(("_", "."))]
    assert daily["outputFacets"]["outputStatistics"] == {**daily["outputFacets"]["outputStatistics"],
                                                         "fileCount": len(files),
                                                         "size": sum(p.stat().st_size for p in files)}
    assert [names(e["outputs"]) for e in events[:2]] == [[("file", f"{root}/data/clicks-daily")], []]
