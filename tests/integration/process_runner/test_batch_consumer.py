"""Batch consumers (`process.py --batch`) run in the test SparkSession through the real pyspark engine, the
Hadoop file system and the ledger: what a batch lists, its snapped and accumulated output, nothing to consume,
a failing batch replayed exactly, max-batch, evictions; and a run killed with SIGKILL through spark-submit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.batch_consumer import NAME, location, publish, write_batch_consumer
from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.integration.spark_submit import environment, spark_submit_command
from toolkit.actions.process_runner.batch_runner import BatchResult, BatchRunner
from toolkit.actions.process_runner.run_results import RunOptions
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, SkippedError

T = utc(2026, 11, 21, 8)
NOW = utc(2026, 11, 22, 12)
BATCHES = f"feed-toolkit/working/ledger/processes/{NAME}/batches"


def batch_runner(spark, repo: Path, run_id: str) -> BatchRunner:  # type: ignore[no-untyped-def]
    runner = new_runner(spark, repo, NAME, TestClock(NOW), RunOptions(max_retry_delay=0), run_id=run_id)
    return BatchRunner(runner)


def daily_lines(root: Path, day: str = "2026/11/21") -> list[dict]:  # type: ignore[type-arg]
    folder = root / "data" / "clicks-daily" / day
    assert (folder / "_SUCCESS").exists()
    return [json.loads(line) for part in sorted(folder.glob("part-*")) for line in part.read_text().splitlines()]


def queue(ledger: Ledger) -> ConsumerQueue:
    return ConsumerQueue(ledger, NAME, {"clicks", "clicks-hourly-summary"})


def read(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())


def test_a_batch_over_two_feeds_lists_the_new_instances_and_publishes_the_snapped_output(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path)
    first = batch_runner(spark, repo, "run1")
    ledger = first.runner.ledger
    clicks = [publish(ledger, root, "clicks", T + timedelta(hours=k)) for k in (2, 0, 1)]  # published out of order
    with pytest.raises(SkippedError, match=r"^The process 'batch-rollup' has nothing to consume: its condition is "
                                           r"`all` and no new instance of 'clicks-hourly-summary' is published\.$"):
        first.run()
    summary = publish(ledger, root, "clicks-hourly-summary", T + timedelta(hours=1))
    result = first.run()
    assert isinstance(result, BatchResult)
    assert (result.status, result.seq, result.attempts, result.time) == ("SUCCEEDED", 1, 1, T + timedelta(hours=2))
    assert result.inputs == {"clicks": ["2026-11-21T08:00Z", "2026-11-21T09:00Z", "2026-11-21T10:00Z"],
                             "summary": ["2026-11-21T09:00Z"]}
    [line] = daily_lines(root)  # the newest input instance, 10:00, snapped onto the daily grid
    assert line["inputs"] == {"clicks": [location(root, "clicks", T + timedelta(hours=k)) for k in (0, 1, 2)],
                              "summary": [location(root, "clicks-hourly-summary", T + timedelta(hours=1))]}
    assert line["event_ids"] == {"clicks": [clicks[1], clicks[2], clicks[0]], "summary": [summary]}
    assert (line["seq"], line["nominal"], sorted(line["events"])) == (1, "2026-11-21T10:00Z",
                                                                     sorted([*clicks, summary]))
    record = read(root / BATCHES / "0000000001" / "batch.json")
    assert (record["status"], record["attempt"], record["run_id"]) == ("SUCCEEDED", 1, "run1")
    assert record["outputs"][0]["path"] == f"file://{root}/data/clicks-daily/2026/11/21"
    [event] = ledger.events("clicks-daily", utc(2026, 11, 21))
    assert (event.kind, event.producer, event.run_id) == ("published", f"process:{NAME}", "run1")
    [batch] = queue(ledger).batches()
    assert (batch.state, batch.commit.run_id if batch.commit else None) == ("consumed", "run1")

    # A run killed after recording its success, before the output's event and the commit: the replay finishes
    # the job without running the workflow again
    consumer = root / "feed-toolkit/working/ledger/consumers" / NAME
    (consumer / "commits" / "0000000001.json").unlink()
    ledger.fs.delete(ledger.journal.path(JournalEntry.of(event)), recursive=False)
    ledger.fs.delete(ledger.layout.event_record("clicks-daily", utc(2026, 11, 21), event.event_id), recursive=False)
    finished = batch_runner(spark, repo, "run2").run()
    assert (finished.status, finished.seq, finished.attempts) == ("SUCCEEDED", 1, 0)
    assert finished.reason == "batch 1 of process 'batch-rollup' was published by run run1; its events and commit " \
                              "are written now"
    assert [line["run"] for line in daily_lines(root)] == ["run1"]
    [again_event] = ledger.events("clicks-daily", utc(2026, 11, 21))
    assert (again_event.kind, again_event.run_id) == ("published", "run1")
    [batch] = queue(ledger).batches()
    assert (batch.state, batch.commit.run_id if batch.commit else None) == ("consumed", "run2")

    with pytest.raises(SkippedError, match="has nothing to consume: no new instance of its inputs is published"):
        batch_runner(spark, repo, "run2b").run()

    # The next batch: a new clicks instance published twice (listed once, at its newest event), a new summary
    again = [publish(ledger, root, "clicks", T + timedelta(hours=3)) for _ in range(2)]
    newer = publish(ledger, root, "clicks-hourly-summary", T + timedelta(hours=2))
    result = batch_runner(spark, repo, "run3").run()
    assert (result.status, result.seq, result.inputs) == ("SUCCEEDED", 2, {"clicks": ["2026-11-21T11:00Z"],
                                                                           "summary": ["2026-11-21T10:00Z"]})
    lines = daily_lines(root)  # the output instance replaced, the first batch's line merged by the workflow
    assert [line["seq"] for line in lines] == [1, 2]
    assert lines[1]["event_ids"] == {"clicks": [again[1]], "summary": [newer]}
    assert sorted(lines[1]["events"]) == sorted([*again, newer])
    assert [e.kind for e in ledger.events("clicks-daily", utc(2026, 11, 21))] == ["published", "replaced"]


def test_a_failing_batch_stays_open_and_the_next_run_replays_exactly_its_events(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path)
    first = batch_runner(spark, repo, "run1")
    ledger = first.runner.ledger
    planned = [publish(ledger, root, "clicks", T), publish(ledger, root, "clicks-hourly-summary", T)]
    (tmp_path / "fail").write_text("")
    result = first.run()
    assert (result.status, result.seq, result.attempts) == ("FAILED", 1, 2)
    assert result.reason is not None and "stays pending and the next run replays it" in result.reason
    assert not (root / "data" / "clicks-daily").exists()
    [batch] = queue(ledger).batches()
    assert (batch.state, sorted(batch.plan.event_ids)) == ("open", sorted(planned))
    attempts = sorted((root / BATCHES / "0000000001").glob("attempt-*.json"))
    assert [read(p)["status"] for p in attempts] == ["FAILED", "FAILED"]
    assert "asked to fail" in read(attempts[0])["error"]

    later = publish(ledger, root, "clicks", T + timedelta(hours=1))  # new meanwhile: not part of the replay
    (tmp_path / "fail").unlink()
    result = batch_runner(spark, repo, "run2").run()
    assert (result.status, result.seq, result.attempts) == ("SUCCEEDED", 1, 1)
    [line] = daily_lines(root)
    assert sorted(line["events"]) == sorted(planned)
    assert read(root / BATCHES / "0000000001" / "attempt-003.json")["status"] == "SUCCEEDED"
    [batch] = queue(ledger).batches()
    assert (batch.state, batch.commit.run_id if batch.commit else None) == ("consumed", "run2")
    assert [e.event_id for e in queue(ledger).pending()] == [later]


def test_max_batch_splits_the_pending_events_into_successive_batches(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path, "{on: data, condition: any, max-batch: 2}")
    ledger = batch_runner(spark, repo, "run0").runner.ledger
    ids = [publish(ledger, root, "clicks", T + timedelta(hours=k)) for k in range(3)]
    evictions = ledger.record_evictions("clicks", "primary", [(T, location(root, "clicks", T))],
                                        producer="retention", run_id="ret")
    assert evictions is not None
    [gone] = evictions.events()
    shutil.rmtree(root / "data" / "clicks" / f"{T:%Y/%m/%d/%H}")
    # Plan 1 holds 08:00 and 09:00; 08:00 was evicted since its event (the consumer came late): nothing of it is
    # left to read, so the workflow gets 09:00 only
    results = [batch_runner(spark, repo, f"run{k}").run() for k in (1, 2)]
    assert [(r.seq, r.status) for r in results] == [(1, "SUCCEEDED"), (2, "SUCCEEDED")]
    assert [(line["seq"], line["times"]["clicks"]) for line in daily_lines(root)] == [
        (1, ["2026-11-21T09:00Z"]), (2, ["2026-11-21T10:00Z"])]  # plan 2: with the eviction, counted, not listed
    plans = [b.plan for b in queue(ledger).batches()]
    assert [sorted(p.event_ids) for p in plans] == [sorted(ids[:2]), sorted([ids[2], gone.event_id])]
    # An instance removed by hand (no eviction recorded): the batch fails at once, naming it, and stays pending
    eleven = T + timedelta(hours=3)
    publish(ledger, root, "clicks", eleven)
    shutil.rmtree(root / "data" / "clicks" / f"{eleven:%Y/%m/%d/%H}")
    failed = batch_runner(spark, repo, "run3").run()
    assert (failed.status, failed.seq, failed.attempts) == ("FAILED", 3, 1)
    assert failed.reason is not None and (f"The instance 2026-11-21T11:00Z of feed 'clicks' "
                                          f"({location(root, 'clicks', eleven)}), input 'clicks' of batch 3 of process "
                                          f"'batch-rollup', is not available and no eviction of it is recorded") \
        in failed.reason
    write_clicks(root, eleven, 1)  # restored: the replay runs it
    replayed = batch_runner(spark, repo, "run4").run()
    assert (replayed.seq, replayed.status) == (3, "SUCCEEDED")
    assert all(b.state == "consumed" for b in queue(ledger).batches())
    with pytest.raises(SkippedError):
        batch_runner(spark, repo, "run5").run()


def test_a_batch_held_by_a_live_run_blocks_the_next_run(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path, "{on: data, condition: any}")
    ledger = batch_runner(spark, repo, "run0").runner.ledger
    publish(ledger, root, "clicks", T)
    other = queue(ledger)
    outcome = other.create_plan("other")
    assert outcome is not None
    claim = other.claim("other", outcome.plan.seq)
    assert claim is not None
    with pytest.raises(BlockedError, match=r"^The process 'batch-rollup' has nothing new to consume and run other on "
                                           r".* consumes its open batch: call again later\.$"):
        batch_runner(spark, repo, "run1").run()
    publish(ledger, root, "clicks", T + timedelta(hours=1))
    write_batch_consumer(repo, tmp_path, "{on: data, condition: any, ordered: true}")
    with pytest.raises(BlockedError, match=r"^The process 'batch-rollup' consumes one batch at a time \(`ordered`\) "
                                           r"and run other on .* holds the oldest: call again later\.$"):
        batch_runner(spark, repo, "run2").run()
    assert [b.plan.seq for b in other.batches()] == [1]  # nothing planned behind the held batch
    other.release(claim)


def _wait_for(condition, seconds: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


@pytest.mark.jvm
def test_a_batch_run_killed_with_sigkill_is_replayed_once_its_lease_expired(run_entrypoint, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path)
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
    planned = [publish(ledger, root, "clicks", T), publish(ledger, root, "clicks-hourly-summary", T)]
    (tmp_path / "hold").write_text("")
    args = ("--repo", str(repo), "--process", NAME, "--cluster", "primary", "--batch", "--lease", "4")
    first = subprocess.Popen(spark_submit_command("process", *args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, cwd=tmp_path, env=environment(), start_new_session=True)
    day = root / "data" / "clicks-daily" / "2026" / "11"
    _wait_for(lambda: day.exists() and any((s / "_SUCCESS").exists() for s in day.glob(".21.toolkit-*")), 180)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert not (day / "21").exists()  # nothing published
    (tmp_path / "hold").unlink()
    [batch] = queue(ledger).batches()
    assert batch.state == "claimed"
    killed = batch.lease.run_id if batch.lease else None
    time.sleep(max(batch.lease.expires - time.time(), 0) + 0.5 if batch.lease else 0)
    second = run_entrypoint("process", *args, cwd=tmp_path)  # the rerun: in process
    assert second.returncode == 0, second.stdout[-3000:]
    status = json.loads(second.stdout.strip().splitlines()[-1])
    assert (status["status"], status["batch"], status["events"]) == ("SUCCEEDED", 1, 2)
    attempts = [read(p) for p in sorted((root / BATCHES / "0000000001").glob("attempt-*.json"))]
    assert [(a["status"], a["run_id"]) for a in attempts] == [("KILLED", killed), ("SUCCEEDED", status["run_id"])]
    [line] = daily_lines(root)
    assert (line["run"], sorted(line["events"])) == (status["run_id"], sorted(planned))
    assert [p.name for p in day.iterdir()] == ["21"]  # the killed attempt's staging was cleared
    [batch] = queue(ledger).batches()
    assert (batch.state, batch.commit.run_id if batch.commit else None) == ("consumed", status["run_id"])
