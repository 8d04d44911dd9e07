"""`toolkit kill` of a running instance with real runs of the process runner in the test SparkSession (issue 37): the
run reads the request at its lease renewal, cancels its Spark jobs, publishes nothing, records KILLED and does not
retry; a request landing between the workflow's end and the publication (the race) still publishes nothing; an
`engine: spark` application's spark-submit is ended with it."""

from __future__ import annotations

import json
import sys
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
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.kill_requests import KillRequest
from toolkit.core.ledger.records import to_json
from toolkit.extensions.workflow_engines import spark_submission
from toolkit.extensions.workflow_engines.spark_submission import SparkSubmission, run_submission, terminate_children
from toolkit.extensions.workflow_engines.workflow_error import WorkflowError

T = utc(2026, 11, 21, 10)
LEDGER = "feed-toolkit/working/ledger/processes"
BUSY = '''
import time

def run(spark, ctx):
    for _ in range(240):  # two minutes of short Spark jobs unless cancelled
        spark.range(2, numPartitions=2).foreach(lambda _: time.sleep(0.25))
    spark.createDataFrame([(1,)], "a int").write.json(ctx.outputs["summary"])
'''


def _process(repo: Path, name: str, body: str) -> str:
    (repo / "workflows" / f"{name}.py").write_text(body)
    return write_process(repo, name, {"path: workflows/hourly_clicks_summary.py": f"path: workflows/{name}.py"})


def _read(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_a_killed_run_stops_its_spark_jobs_publishes_nothing_and_records_killed(
        spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = _process(repo, "busy", BUSY)
    folder = root / LEDGER / name / "20261121T1000Z"
    said: list[tuple[int, str, str]] = []

    def kill_when_running() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (folder / "attempt-001.json").exists():
            time.sleep(0.2)
        time.sleep(2)  # Spark jobs are under way
        code = main(["kill", "--repo", str(repo), "--process", name, "--time", "2026-11-21T10:00Z", "--reason",
                     "wrong input"])
        out, err = capsys.readouterr()
        said.append((code, out, err))

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    began = time.monotonic()
    result = new_runner(spark, repo, name, TestClock(T), lease=3.0).run(T)
    killer.join()
    assert said and said[0][0] == 0 and said[0][1].startswith("Asked run run1 ("), said
    assert (result.status, result.attempts) == ("KILLED", 1)
    assert time.monotonic() - began < 60  # the two minutes of jobs were cancelled
    attempt, instance = _read(folder / "attempt-001.json"), _read(folder / "instance.json")
    assert attempt["status"] == "KILLED" and attempt["error"].startswith("The run was killed by ")
    assert attempt["error"].endswith(": wrong input; it publishes nothing.")
    assert (instance["status"], instance["attempts"]) == ("KILLED", 1)
    assert not (folder / "attempt-002.json").exists()  # no retry
    assert not (folder / "kill").exists()  # the request is done with
    output = root / "data/clicks-hourly-summary/2026/11/21"
    assert not output.exists() or list(output.iterdir()) == []  # nothing published, the staging discarded
    assert main(["kill", "--repo", str(repo), "--process", name, "--time", "2026-11-21T10:00Z"]) == 4  # not running


def test_a_request_between_the_workflow_and_its_publication_publishes_nothing(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    folder = root / LEDGER / "late-kill" / "20261121T1000Z"
    request = to_json(KillRequest("run1", "2026-11-21T10:05:00Z", "operator@host", "race"))
    # The workflow writes its output, then the request lands (as `toolkit kill` would write it) before the runner
    # publishes; the lease keeper's renewals are 20 s apart, so only the check before publishing can see it.
    body = (f"def run(spark, ctx):\n    spark.createDataFrame([(1,)], 'a int').write.json(ctx.outputs['summary'])\n"
            f"    open({str(folder / 'kill')!r}, 'wb').write({request!r})\n")
    name = _process(repo, "late-kill", body)
    result = new_runner(spark, repo, name, TestClock(T), lease=60.0).run(T)
    assert (result.status, result.attempts) == ("KILLED", 1)
    assert _read(folder / "attempt-001.json")["error"] == ("The run was killed by operator@host at "
                                                           "2026-11-21T10:05:00Z: race; it publishes nothing.")
    output = root / "data/clicks-hourly-summary/2026/11/21"
    assert not output.exists() or list(output.iterdir()) == []
    assert not list(root.glob("data/clicks-hourly-summary/**/part-*"))  # the staged files were discarded too


def test_a_run_waiting_for_its_inputs_stops_at_its_next_poll(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)  # the 10:00 clicks never come
    folder = root / LEDGER / "hourly-clicks-summary" / "20261121T1000Z"

    def kill_while_waiting(clock: TestClock) -> None:  # the operator's request lands during the first pause
        if not (folder / "kill").exists():
            (folder / "kill").write_bytes(to_json(KillRequest("run1", "2026-11-21T10:02:00Z", "op@host", "no data")))

    clock = TestClock(T, on_sleep=kill_while_waiting)
    result = new_runner(spark, repo, "hourly-clicks-summary", clock).run(T)
    assert result.status == "KILLED" and len(clock.slept) == 1
    instance = _read(folder / "instance.json")
    assert (instance["status"], instance["error"]) == (
        "KILLED", "The run was killed by op@host at 2026-11-21T10:02:00Z: no data; it publishes nothing.")
    assert not list(folder.glob("attempt-*")) and not (folder / "kill").exists()


def test_a_request_for_another_run_is_stale_and_ignored(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    folder = root / LEDGER / "hourly-clicks-summary" / "20261121T1000Z"
    folder.mkdir(parents=True)
    (folder / "kill").write_bytes(to_json(KillRequest("an-earlier-run", "2026-11-21T09:00:00Z", "op@host")))
    result = new_runner(spark, repo, "hourly-clicks-summary", TestClock(T)).run(T)
    assert result.status == "SUCCEEDED"
    assert not (folder / "kill").exists()


def test_terminate_children_ends_a_running_spark_submit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's cancel hook ends an `engine: spark` child: run_submission ends with its exit code."""
    repo, _ = make_repo(tmp_path)
    process = ConfigRepo.load(repo).process("hourly-clicks-summary")
    monkeypatch.setattr(spark_submission, "application_arguments", lambda process, ctx: [])  # no instance here
    child = SparkSubmission("sleeper.py", (sys.executable, "-c", "import time; print('started', flush=True); "
                                           "time.sleep(300)"), process)
    failure: list[BaseException] = []

    def submit() -> None:
        with (tmp_path / "out.log").open("a", buffering=1) as log:  # each line seen as written
            try:
                run_submission(child, None, log=log)  # type: ignore[arg-type]
            except WorkflowError as err:
                failure.append(err)

    (tmp_path / "out.log").write_text("")
    thread = threading.Thread(target=submit)
    thread.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "started" not in (tmp_path / "out.log").read_text():
        time.sleep(0.1)
    assert "started" in (tmp_path / "out.log").read_text()
    began = time.monotonic()
    terminate_children()
    thread.join(30)
    assert not thread.is_alive() and time.monotonic() - began < 10
    assert len(failure) == 1 and "sleeper.py exited with code -15" in str(failure[0])
