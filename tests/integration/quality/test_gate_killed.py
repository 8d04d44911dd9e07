"""The data-quality gate killed with SIGKILL, then run again:

- a process run killed while its gate validates the staged output (Great Expectations running its Spark jobs):
  nothing is published (no output folder, no dataset event), the ledger shows the attempt RUNNING, never
  SUCCEEDED; the rerun takes the instance over once the lease expired, records the killed attempt KILLED,
  validates again and publishes once, with the gate's results in its attempt record;
- an ingest run killed between its gate's verdict on a due instance and the instance's flag: the instance is not
  published (no flag, no event, no closing record); the rerun checks it again and publishes it exactly once (one
  flag, one dataset event, its closing record `closed` with the gate's results), while the hour the killed run's
  gate refused stays held, unchecked, and its notice is not sent again.

The killed runs are real: one separate process (its own Spark JVM, which dies with it, and Great Expectations
imported once) runs the real ingest until its gate passes an instance, where the harness parks it, then the real
process run, and sends itself SIGKILL in the middle of the process's validation: both runs die at their point
(the code under test is not changed). Their leases are 2 s; the reruns run in the test session's SparkSession."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

from tests.integration.ingest.landing import drop
from tests.integration.ingest.test_ingest_quality import FS, HOUR, LINES, call_ingest, closing, gated_repo, outcomes
from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.lineage_receiver import Receiver, lineage_receiver
from toolkit.actions.ingest.closing_record import ClosingBook
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError

pytestmark = pytest.mark.jvm  # every test kills a run that has its own Spark JVM

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


PROJECT = Path(__file__).resolve().parents[3]
T = utc(2026, 11, 21, 10)
RECORDS = "feed-toolkit/working/ledger/processes/hourly-clicks-summary/20261121T1000Z"
R = TypeVar("R")
# The summary the template's suite expects, written without reading the clicks (the gate is what is tested here).
SUMMARY = '''
def run(spark, ctx):
    rows = [("/", 3, 2, 9), ("/cart", 3, 3, 9), ("/help", 2, 1, 5)]
    schema = "page string, clicks long, users long, clicks_3h long"
    spark.createDataFrame(rows, schema).coalesce(1).write.json(ctx.outputs["summary"])
'''

KILLED_RUNS = """
import os, signal, sys, threading, time
from pathlib import Path
sys.path.insert(0, {project!r})
from pyspark.sql import SparkSession
from tests.integration.process_runner.process_repo import TestClock, new_runner, utc
from toolkit.core.entities.repo import ConfigRepo
from toolkit.actions.ingest import closing_gate, runner
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.quality import expectations
from toolkit.services.runtime.run_context import RunContext
from toolkit.core.storage.hadoop import HadoopFileSystem
from toolkit.core.storage.jvm_classes import jar_path

spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").config("spark.jars", jar_path()).getOrCreate())

def die():
    os.kill(os.getpid(), signal.SIGKILL)

# The ingest run: once its gate lets a due instance through, it stops there, before the flag, until the kill.
allows = closing_gate.QualityClosing.allows
def parked_after_the_gate(self, t):
    verdict = allows(self, t)
    if verdict:
        Path({passed!r}).write_text(t.isoformat())
        while True:
            time.sleep(1)
    return verdict
closing_gate.QualityClosing.allows = parked_after_the_gate
repo = ConfigRepo.load({ingest_repo!r})
fs = HadoopFileSystem(spark)
notifier = Notifier(fs, repo.cluster("primary"))
ingest = threading.Thread(target=runner.run_ingest, daemon=True, args=(
    spark, repo, "events", "primary", RunContext(fs, "killed", notifier=notifier, lease_seconds=2.0)))
ingest.start()
while ingest.is_alive() and not Path({passed!r}).exists():
    time.sleep(0.05)

# The process run: killed in the middle of its gate's validation (its Spark jobs), the ingest run with it.
validate = expectations.Validator.validate
def validating(self, frame, suite):
    Path({validating!r}).touch()
    tracker = spark.sparkContext.statusTracker()
    def once_a_job_runs():
        deadline = time.monotonic() + 60
        while not tracker.getActiveJobsIds() and time.monotonic() < deadline:
            time.sleep(0.005)
        die()
    threading.Thread(target=once_a_job_runs, daemon=True).start()
    validate(self, frame, suite)
    die()  # the validation ended before a job was seen: killed right after it all the same
expectations.Validator.validate = validating
t = utc(2026, 11, 21, 10)
new_runner(spark, Path({process_repo!r}), "hourly-clicks-summary", TestClock(t.replace(minute=5)), run_id="killed",
           lease=2.0).run(t)
"""


@dataclass
class Killed:
    """The two runs the one killed process held: a process run (its repo, its cluster root) and an ingest run (its
    repo, its root, the webhook its notices went to), and the markers of where each was."""

    process_repo: Path
    process_root: Path
    ingest_repo: ConfigRepo
    ingest_root: Path
    hooks: Receiver
    validating: Path
    passed: Path
    output: str = ""  # the end of the killed process's output


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Killed]:
    """One Spark process (a JVM, Great Expectations imported once) running an ingest, parked between its gate and
    its flag, and a process run, killed with SIGKILL while its gate validates."""
    tmp = tmp_path_factory.mktemp("killed-gates")
    (tmp / "process").mkdir()
    (tmp / "ingest").mkdir()
    process_repo, process_root = make_repo(tmp / "process", quality=True)
    write_clicks(process_root, T - timedelta(hours=2), 3)
    (process_repo / "workflows" / "hourly_clicks_summary.py").write_text(SUMMARY)
    with lineage_receiver("/hooks/ops") as hooks:
        ingest_repo, ingest_root = gated_repo(tmp / "ingest", "block", hooks.url + "/hooks/ops")
        drop(ingest_root, "a.csv", LINES)  # hour 10 breaks the suite (ms 500), hour 11 meets it, 12:10 closes both
        runs = Killed(process_repo, process_root, ingest_repo, ingest_root, hooks, tmp / "validating", tmp / "passed")
        # A file, not `-c`: pyspark's Spark Connect check, which Great Expectations' import reaches, takes a
        # `__main__` without a file for a doctest run and exits 0.
        program = tmp / "killed_runs.py"
        program.write_text(KILLED_RUNS.format(project=str(PROJECT), process_repo=str(process_repo),
                                              ingest_repo=str(ingest_repo.root), validating=str(runs.validating),
                                              passed=str(runs.passed)))
        child = subprocess.run([sys.executable, str(program)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=tmp, timeout=300)
        runs.output = child.stdout.decode(errors="replace")[-3000:]
        assert child.returncode == -signal.SIGKILL, runs.output
        yield runs


def once_the_lease_expired(call: Callable[[], R], blocked: Callable[[R], bool] = lambda _: False) -> R:
    """`call` again while the killed run's lease (2 s) holds it back (BlockedError, or what `blocked` tells)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            result = call()
            if not blocked(result) or time.monotonic() > deadline:
                return result
        except BlockedError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.5)


def test_a_process_killed_while_its_gate_validates_publishes_nothing_and_the_rerun_validates_and_publishes_once(
        spark: SparkSession, killed: Killed) -> None:
    repo, root = killed.process_repo, killed.process_root
    assert killed.validating.exists(), killed.output  # killed while validating, not before
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    events = root / "feed-toolkit/working/ledger/events/clicks-hourly-summary"
    assert not output.exists() and not list(events.glob("*/*.json"))  # nothing published
    records = root / RECORDS
    instance = json.loads((records / "instance.json").read_text())
    [attempt] = [json.loads(path.read_text()) for path in records.glob("attempt-*.json")]
    assert (instance["status"], instance["succeeded"], instance["outputs"]) == ("RUNNING", None, [])
    assert (attempt["status"], attempt["run_id"], attempt["quality"]) == ("RUNNING", "killed", [])

    runner = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T + timedelta(minutes=10)), run_id="rerun")
    result = once_the_lease_expired(lambda: runner.run(T))
    assert (result.status, result.counters()["quality"]) == ("SUCCEEDED", "7/7 passed")
    attempts = [json.loads((records / f"attempt-00{k}.json").read_text()) for k in (1, 2)]
    assert [(a["status"], a["run_id"]) for a in attempts] == [("KILLED", "killed"), ("SUCCEEDED", "rerun")]
    [gate] = attempts[1]["quality"]
    assert (gate["suite"], gate["success"], gate["passed"], gate["evaluated"]) == (
        "quality/clicks-hourly-summary.json", True, 7, 7)
    assert json.loads((records / "instance.json").read_text())["status"] == "SUCCEEDED"
    assert [p.name for p in output.parent.iterdir()] == ["10"]  # the killed attempt's staging was cleared
    assert (output / "_SUCCESS").exists()
    [event] = [json.loads(path.read_text()) for path in events.glob("*/*.json")]  # published once
    assert (event["kind"], event["run_id"]) == ("published", "rerun")
    assert len(spark.read.json(str(output)).collect()) == 3  # the three pages of the hour


def test_ingest_killed_between_its_gate_and_the_flag_publishes_the_instance_once_on_the_rerun(
        spark: SparkSession, killed: Killed, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, hooks = killed.ingest_repo, killed.ingest_root, killed.hooks
    assert killed.passed.exists(), killed.output
    assert killed.passed.read_text() == HOUR[11].isoformat()  # killed once the gate passed hour 11
    ledger = Ledger.of(LocalFileSystem(), repo.cluster("primary"))
    hour = {h: root / f"data/events/2026/01/01/{h}" for h in (10, 11)}
    assert not (hour[11] / "_SUCCESS").exists() and ledger.events("events", HOUR[11]) == []  # not published
    assert ClosingBook(FS, ledger.layout, "events").read(HOUR[11]) is None  # its verdict never recorded
    assert closing(repo, 10).state == "blocked"
    assert len(hooks.events) == 1  # hour 10's refusal, told by the killed run

    code, status, _, _ = once_the_lease_expired(lambda: call_ingest(repo, monkeypatch, capsys),
                                                lambda answer: answer[0] == 5)
    assert (code, status["status"], status["instances_closed"], status["instances_held"],
            status["quality"]) == (0, "SUCCEEDED", ["2026-01-01T11:00Z"], ["2026-01-01T10:00Z"], "2/2 passed")
    assert len(hooks.events) == 1  # the held hour is not told again
    assert (hour[11] / "_SUCCESS").exists()
    assert [(e.kind, e.producer, e.run_id) for e in ledger.events("events", HOUR[11])] == [
        ("published", "ingest", status["run_id"])]  # published once, by the rerun
    record = closing(repo, 11)
    assert (record.state, record.run_id) == ("closed", status["run_id"])
    assert outcomes(record) == [("expect_column_values_to_be_between", True, 0),
                                ("expect_column_values_to_not_be_null", True, 0)]
    assert sorted(r.ms for r in spark.read.parquet(str(hour[11])).collect()) == [3]  # hour 11's one record, once
    assert not (hour[10] / "_SUCCESS").exists() and ledger.events("events", HOUR[10]) == []  # still held
    assert (closing(repo, 10).state, closing(repo, 10).run_id) == ("blocked", "killed")
