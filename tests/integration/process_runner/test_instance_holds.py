"""A held instance (`toolkit suspend --process P --time T`, Falcon's `instance -suspend`) with real runs of the process
runner in the test SparkSession (issue 37): a run of it does not start it (exit 4, naming the hold and how to
resume), writing nothing; a run waiting for its inputs stops at its next poll; after `toolkit resume --time` it runs
and publishes. A running Spark instance cannot be paused: `toolkit suspend` refuses it (exit 1), holding nothing.
An Oozie job suspended and resumed mid-run: test_oozie_engine_on_a_stand_in.py."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import (
    TestClock,
    make_repo,
    new_runner,
    utc,
    write_clicks,
    write_process,
)
from toolkit.cli.main import main
from toolkit.core.ledger.records import InstanceRecord
from toolkit.core.ledger.store import Ledger
from toolkit.errors import SkippedError
from toolkit.services.runtime.status import STATUS_OF_EXIT
from toolkit.statuses import Status

T = utc(2026, 11, 21, 10)
PROCESS = "hourly-clicks-summary"
INSTANCE = ["--process", PROCESS, "--cluster", "primary", "--time", "2026-11-21T10:00Z"]
HELD = (f"The instance 2026-11-21T10:00Z of process '{PROCESS}' on cluster 'primary' is suspended (held by ")
RESUME = f"it does not start until `toolkit resume --process {PROCESS} --cluster primary --time 2026-11-21T10:00Z`."


def _records(root: Path) -> Path:
    return root / "feed-toolkit/working/ledger/processes" / PROCESS / "20261121T1000Z"


def test_a_held_instance_is_not_started_and_runs_once_resumed(spark, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    assert main(["suspend", "--repo", str(repo), *INSTANCE, "--reason", "bad upstream data"]) == 0
    capsys.readouterr()
    with pytest.raises(SkippedError) as held:
        new_runner(spark, repo, PROCESS, TestClock(T)).run(T)
    assert STATUS_OF_EXIT[held.value.exit_code] == Status.SKIPPED and held.value.exit_code == 4
    assert str(held.value).startswith(HELD) and str(held.value).endswith(f": bad upstream data): {RESUME}")
    assert not _records(root).exists()  # nothing recorded, nothing locked
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    assert not output.exists()

    assert main(["resume", "--repo", str(repo), *INSTANCE]) == 0
    assert capsys.readouterr().out.endswith("): process.py runs it again.\n")
    result = new_runner(spark, repo, PROCESS, TestClock(T)).run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    assert (output / "_SUCCESS").exists()


def test_a_hold_written_as_the_run_starts_its_attempt_is_seen_and_nothing_runs(
        spark, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`toolkit suspend` held the instance after the run's first look for a hold, and before the run recorded it
    RUNNING (so suspend saw nothing running): the run writes RUNNING, then looks again, and stops before its
    workflow. The other order, suspend seeing the RUNNING record: tests/unit/cli/test_instance_holds.py."""
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    write_instance = Ledger.write_instance
    suspended: list[int] = []

    def suspended_as_it_starts(ledger: Ledger, record: InstanceRecord) -> None:
        if record.status == Status.RUNNING and not suspended:  # suspend holds and sees no RUNNING yet
            suspended.append(main(["suspend", "--repo", str(repo), *INSTANCE]))
        write_instance(ledger, record)

    monkeypatch.setattr(Ledger, "write_instance", suspended_as_it_starts)
    with pytest.raises(SkippedError) as held:
        new_runner(spark, repo, PROCESS, TestClock(T)).run(T)
    assert suspended == [0] and "process.py does not start it" in capsys.readouterr().out
    assert str(held.value).startswith(HELD) and str(held.value).endswith(RESUME)
    record = json.loads((_records(root) / "instance.json").read_text())
    assert (record["status"], record["attempts"]) == ("WAITING", 0)
    assert not (_records(root) / "attempt-001.json").exists()
    assert not (root / "data/clicks-hourly-summary/2026/11/21/10").exists()


def test_a_run_waiting_for_its_inputs_stops_at_its_next_poll_once_held(spark, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)  # the third hour never comes

    def hold_once(clock: TestClock) -> None:
        if len(clock.slept) == 2:
            assert main(["suspend", "--repo", str(repo), *INSTANCE]) == 0

    clock = TestClock(T, on_sleep=hold_once)
    with pytest.raises(SkippedError) as held:
        new_runner(spark, repo, PROCESS, clock).run(T)
    assert str(held.value).startswith(HELD) and str(held.value).endswith(RESUME)
    assert "process.py does not start it" in capsys.readouterr().out  # no attempt under way: it is held
    assert len(clock.slept) == 2  # stopped at the poll after the hold
    record = json.loads((_records(root) / "instance.json").read_text())
    assert (record["status"], record["attempts"]) == ("WAITING", 0)
    assert not (_records(root) / "attempt-001.json").exists()


def _instance_running(folder: Path) -> bool:
    """What `toolkit suspend` reads: the run writes its attempt record first, then the instance's RUNNING."""
    try:
        return json.loads((folder / "instance.json").read_text())["status"] == "RUNNING"
    except (FileNotFoundError, json.JSONDecodeError):
        return False


BUSY = '''
import time

def run(spark, ctx):
    for _ in range(240):  # two minutes of short Spark jobs unless cancelled
        spark.range(2, numPartitions=2).foreach(lambda _: time.sleep(0.25))
    spark.createDataFrame([(1,)], "a int").write.json(ctx.outputs["summary"])
'''


def test_a_running_spark_instance_is_not_held_and_the_operator_is_told_to_kill_or_wait(
        spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    (repo / "workflows" / "busy.py").write_text(BUSY)
    name = write_process(repo, "busy", {"path: workflows/hourly_clicks_summary.py": "path: workflows/busy.py"})
    instance = ["--repo", str(repo), "--process", name, "--cluster", "primary", "--time", "2026-11-21T10:00Z"]
    folder = root / "feed-toolkit/working/ledger/processes" / name / "20261121T1000Z"
    said: list[tuple[int, str]] = []
    killed: list[float] = []

    def suspend_when_running() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _instance_running(folder):
            time.sleep(0.2)
        code = main(["suspend", *instance])
        said.append((code, capsys.readouterr().err))
        killed.append(time.monotonic())
        main(["kill", *instance])  # ends the test's two minutes of jobs, whether or not a job runs at that moment

    operator = threading.Thread(target=suspend_when_running)
    operator.start()
    result = new_runner(spark, repo, name, TestClock(T), lease=6.0).run(T)
    ended = time.monotonic()
    operator.join()
    assert killed and ended - killed[0] < 20  # the lease is renewed every 2 s: the next job is cancelled then
    assert said == [(1, f"toolkit: The instance 2026-11-21T10:00Z of process '{name}' on cluster 'primary' is running "
                        "on engine pyspark, and nothing can pause a running Spark job: nothing was suspended; end it "
                        f"with `toolkit kill --process {name} --cluster primary --time 2026-11-21T10:00Z` or wait for "
                        "it to end, then suspend it.\n")]
    assert list((root / "feed-toolkit/working/ledger/processes" / name).glob("holds/*")) == []  # nothing held
    assert result.status == Status.KILLED
