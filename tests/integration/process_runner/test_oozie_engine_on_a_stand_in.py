"""The `oozie` and `pig` engines against a STAND-IN of an Oozie server (tests/oozie_server.py: Oozie needs Hadoop and
cannot run here; the stand-in follows Oozie's REST API and runs the workflow's actions as local shell steps).

A process of engine oozie hands its workflow application to the cluster's Oozie (its workflow interface) with the
job configuration Falcon passed (asserted as the stand-in received it), follows the job to its end and publishes
what the job wrote to the staging paths it was given; a job that ends KILLED or FAILED is a failed attempt naming
the job and its failed action, with nothing published; a job running past the process's timeout is killed (the
attempt TIMEDOUT). An https:// Oozie is verified with the cluster's CA file. A runner killed with SIGKILL while
the job runs (or between its submission and its start) leaves the job's id in the ledger: the next run follows
that job and never submits the workflow again. A pig process runs its script in the one-action workflow Falcon
wrapped it in."""

from __future__ import annotations

import json
import textwrap
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.attached_driver import ATTACHED_SESSION, killed_on_the_sessions_jvm
from tests.integration.process_runner.batch_consumer import NAME as BATCH
from tests.integration.process_runner.batch_consumer import publish, write_batch_consumer
from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.oozie_server import OozieFailure, StandInOozie, stand_in_oozie
from tests.smtp_server import self_signed
from toolkit.actions.process_runner.batch_runner import BatchRunner
from toolkit.actions.process_runner.run_results import RunOptions
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.output_targets import staging_key
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.statuses import Status

T = utc(2026, 11, 21, 10)
NAME = "clicks-oozie"
PROJECT = Path(__file__).resolve().parents[3]
# The shell step: $1 the input's paths (comma-separated URIs), $2 the output's staging path; it concatenates the
# inputs' part files into the output, or waits first for the file $WAIT_FOR when the job's configuration names one.
STEP = """\
#!/bin/sh
set -e
if [ -n "$WAIT_FOR" ]; then while [ ! -e "$WAIT_FOR" ]; do sleep 0.05; done; fi
out="${2#file://}"
mkdir -p "$out"
for path in $(echo "$1" | tr ',' ' '); do cat "${path#file://}"/part-*.json; done > "$out/part-00000.json"
exit "${EXIT_CODE:-0}"
"""
WORKFLOW = """\
<workflow-app xmlns="uri:oozie:workflow:0.5" name="clicks-count">
  <start to="count"/>
  <action name="count">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <job-tracker>${jobTracker}</job-tracker>
      <name-node>${nameNode}</name-node>
      <exec>step.sh</exec>
      <argument>${clicks}</argument>
      <argument>${summary}</argument>
      <env-var>WAIT_FOR=${waitFor}</env-var>
      <env-var>EXIT_CODE=${exitCode}</env-var>
      <file>step.sh</file>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>count failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def _oozie_repo(tmp_path: Path, oozie: StandInOozie, *, engine: str = "oozie", path: str = "/apps/clicks-count",
                properties: str = "  waitFor: ''\n  exitCode: '0'\n", timeout: str = "hours(4)",
                poll: str = "0.05", workflow: str = WORKFLOW) -> tuple[Path, Path, list[Path]]:
    """The template repo whose cluster `primary` names the stand-in as its Oozie, a process NAME of `engine` on
    it, its application (workflow.xml and step.sh) and three hours of clicks."""
    repo, root = make_repo(tmp_path)
    cluster = repo / "clusters/primary.yaml"
    text = cluster.read_text().replace("endpoint: cron://localhost", f"endpoint: {oozie.url}")
    cluster.write_text(text.replace("properties:\n", f"properties:\n  oozie.client.poll-seconds: '{poll}'\n"
                                                     "  oozie.client.user: falcon\n", 1))
    app = root / "apps/clicks-count"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(workflow)
    (app / "step.sh").write_text(STEP)
    (app / "step.sh").chmod(0o755)
    process = (repo / "processes/hourly-clicks-summary.yaml").read_text()
    for old, new in (("name: hourly-clicks-summary", f"name: {NAME}"),
                     ("  engine: pyspark\n  path: workflows/hourly_clicks_summary.py\n",
                      f"  engine: {engine}\n  path: {path}\n"),
                     ("timeout: hours(4)", f"timeout: {timeout}"), ("attempts: 3", "attempts: 1"),
                     ("retry:\n", f"properties:\n{properties}retry:\n")):
        assert old in process, old
        process = process.replace(old, new, 1)
    (repo / f"processes/{NAME}.yaml").write_text(process)
    folders = write_clicks(root, T - timedelta(hours=2), 3)
    return repo, root, folders


def _staging(root: Path, run_id: str, attempt: int = 1) -> str:
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    return f"file://{output.parent}/.10.toolkit-{staging_key(NAME, T)}-{run_id}-{attempt}"


def _records(root: Path) -> Path:
    return root / "feed-toolkit/working/ledger/processes" / NAME / "20261121T1000Z"


def test_the_stand_in_oozie_runs_the_workflow_with_falcons_configuration_and_the_output_is_published(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    repo, root, folders = _oozie_repo(tmp_path, oozie)
    result = new_runner(spark, repo, NAME, TestClock(T)).run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    [job] = oozie.jobs.values()
    inputs = ",".join(f"file://{folder}" for folder in folders)
    staging = _staging(root, "run1")
    assert {key: job.conf.get(key) for key in (
        "oozie.wf.application.path", "user.name", "nameNode", "jobTracker", "nominalTime", "clicks", "summary",
        "falconInputFeeds", "falconInputNames", "falconInPaths", "falconInputFeedStorageTypes", "feedNames",
        "feedInstanceNames", "feedInstancePaths", "entityType", "entityName", "cluster", "userWorkflowName",
        "userWorkflowEngine", "userWorkflowVersion", "falconDataOperation", "shouldRecord", "queueName",
        "jobPriority", "workflowEngineUrl", "falcon.libpath", "waitFor", "exitCode", "spark.sql.shuffle.partitions",
    )} == {
        "oozie.wf.application.path": f"file://{root}/apps/clicks-count", "user.name": "falcon",
        "nameNode": f"file://{root}", "jobTracker": "spark://127.0.0.1:7077", "nominalTime": "2026-11-21-10-00",
        "clicks": inputs, "summary": staging, "falconInputFeeds": "clicks", "falconInputNames": "clicks",
        "falconInPaths": inputs, "falconInputFeedStorageTypes": "FILESYSTEM", "feedNames": "clicks-hourly-summary",
        "feedInstanceNames": "summary", "feedInstancePaths": staging, "entityType": "PROCESS", "entityName": NAME,
        "cluster": "primary", "userWorkflowName": "hourly-clicks-summary", "userWorkflowEngine": "oozie",
        "userWorkflowVersion": "1.0", "falconDataOperation": "GENERATE", "shouldRecord": "true",
        "queueName": "default", "jobPriority": "NORMAL", "workflowEngineUrl": oozie.url,
        "falcon.libpath": f"file://{root}/feed-toolkit/working/lib", "waitFor": "", "exitCode": "0",
        "spark.sql.shuffle.partitions": "4",  # the cluster's properties too (make_repo's)
    }
    assert not [key for key in job.conf if key.startswith("oozie.client.")]  # the client's settings stay home
    # Submitted in PREP (no action=start), recorded, found in PREP, started, then followed to its end.
    assert oozie.calls[:3] == [("POST", "/oozie/v2/jobs", {"user.name": "falcon"}),
                               ("GET", f"/oozie/v2/job/{job.id}", {"show": "info"}),
                               ("PUT", f"/oozie/v2/job/{job.id}", {"action": "start", "user.name": "falcon"})]
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    assert (output / "part-00000.json").read_text() == "".join(
        (folder / "part-00000.json").read_text() for folder in folders)
    assert (output / "_SUCCESS").exists()
    attempt = json.loads((_records(root) / "attempt-001.json").read_text())
    assert (attempt["status"], attempt["job"]) == ("SUCCEEDED", {"id": job.id, "run_id": "run1", "attempt": 1,
                                                                 "status": "SUCCEEDED"})


@pytest.mark.parametrize(("properties", "ended", "action"), [
    ("  waitFor: ''\n  exitCode: '3'\n", "KILLED",
     "action 'count' ERROR (3): Main class [org.apache.oozie.action.hadoop.ShellMain], exit code [3]"),
    ("  waitFor: ''\n", "FAILED", "action 'count' ERROR (EL_ERROR): variable [exitCode] cannot be resolved"),
])
def test_a_job_the_stand_in_ends_killed_or_failed_is_a_failed_attempt_and_nothing_is_published(
        spark, oozie: StandInOozie, tmp_path: Path, properties: str, ended: str, action: str) -> None:
    repo, root, _ = _oozie_repo(tmp_path, oozie, properties=properties)
    result = new_runner(spark, repo, NAME, TestClock(T)).run(T)
    [job] = oozie.jobs.values()
    reason = f"The Oozie workflow job {job.id} of file://{root}/apps/clicks-count ended {ended}: {action}."
    assert (result.status, result.reason) == (Status.FAILED, reason)
    attempt = json.loads((_records(root) / "attempt-001.json").read_text())
    assert (attempt["status"], attempt["error"], attempt["job"]["status"]) == ("FAILED", reason, ended)
    day = root / "data/clicks-hourly-summary/2026/11/21"
    assert not day.exists() or list(day.iterdir()) == []  # neither an output nor a staging left


def test_a_job_past_the_process_timeout_is_killed_on_the_stand_in_and_the_attempt_timed_out(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    # The step waits for a file that never comes; the runner's clock (the test's: it moves without waiting) passes
    # the process's timeout of one minute after 60 polls of a second.
    repo, root, _ = _oozie_repo(tmp_path, oozie, properties=f"  waitFor: {tmp_path}/never\n  exitCode: '0'\n",
                                timeout="minutes(1)", poll="1")
    clock = TestClock(T)
    result = new_runner(spark, repo, NAME, clock).run(T)
    assert (sum(clock.slept), len(clock.slept)) == (60.0, 60)
    [job] = oozie.jobs.values()
    reason = (f"The Oozie workflow job {job.id} of file://{root}/apps/clicks-count ran past the timeout of process "
              f"'{NAME}' (minutes(1)) and was killed.")
    assert (result.status, result.reason, job.status) == (Status.FAILED, reason, "KILLED")
    attempt = json.loads((_records(root) / "attempt-001.json").read_text())
    assert (attempt["status"], attempt["job"]["status"]) == ("TIMEDOUT", "KILLED")
    assert ("PUT", f"/oozie/v2/job/{job.id}", {"action": "kill", "user.name": "falcon"}) in oozie.calls


def test_status_requests_the_stand_in_refuses_are_asked_again_and_the_job_is_not_submitted_twice(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    repo, root, _ = _oozie_repo(tmp_path, oozie)
    oozie.faults["GET"] = [OozieFailure(503, "E0002", "Oozie in safe mode") for _ in range(3)]
    result = new_runner(spark, repo, NAME, TestClock(T)).run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    assert len(oozie.jobs) == 1 and oozie.faults["GET"] == []
    assert (root / "data/clicks-hourly-summary/2026/11/21/10/_SUCCESS").exists()


def test_a_job_whose_status_the_stand_in_never_answers_is_killed_at_the_timeout(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    repo, root, _ = _oozie_repo(tmp_path, oozie, timeout="minutes(1)", poll="30")
    oozie.faults["GET"] = [OozieFailure(503, "E0002", "Oozie in safe mode") for _ in range(3)]
    result = new_runner(spark, repo, NAME, TestClock(T)).run(T)
    [job] = oozie.jobs.values()
    assert (result.status, job.status) == (Status.FAILED, "KILLED")
    assert result.reason == (
        f"The Oozie workflow job {job.id} of file://{root}/apps/clicks-count ran past the timeout of process "
        f"'{NAME}' (minutes(1)), its status unknown (The Oozie server {oozie.url} refused GET job: E0002: Oozie in "
        "safe mode) and was killed.")


def test_a_timed_out_job_that_could_not_be_killed_is_followed_by_the_retry_not_submitted_again(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    # Oozie answers no status until the timeout and refuses the kill: the job may still run, so the next attempt
    # follows it (here it is still in PREP: started, then published) instead of running the workflow a second time.
    repo, root, _ = _oozie_repo(tmp_path, oozie, timeout="minutes(1)", poll="30")
    process = repo / f"processes/{NAME}.yaml"
    process.write_text(process.read_text().replace("attempts: 1", "attempts: 2"))
    oozie.faults["GET"] = [OozieFailure(503, "E0002", "Oozie in safe mode") for _ in range(3)]
    oozie.faults["PUT"] = [OozieFailure(503, "E0002", "Oozie in safe mode")]
    # Each poll of the runner's clock (30 s, not waited) lets the stand-in's step run for a real tenth of a second.
    result = new_runner(spark, repo, NAME, TestClock(T, on_sleep=lambda _: time.sleep(0.1))).run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    [job] = oozie.jobs.values()
    assert [call[0] for call in oozie.calls].count("POST") == 1
    first, second = (json.loads((_records(root) / f"attempt-00{n}.json").read_text()) for n in (1, 2))
    assert (first["status"], first["job"]) == ("TIMEDOUT", {"id": job.id, "run_id": "run1", "attempt": 1})
    assert (second["status"], second["job"]["id"], second["job"]["status"]) == ("SUCCEEDED", job.id, "SUCCEEDED")
    assert (root / "data/clicks-hourly-summary/2026/11/21/10/_SUCCESS").exists()


def test_an_oozie_process_on_a_cluster_without_oozie_is_a_usage_error_before_anything(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    repo, root, _ = _oozie_repo(tmp_path, oozie)
    cluster = repo / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text().replace(f"endpoint: {oozie.url}", "endpoint: cron://localhost"))
    with pytest.raises(UsageError) as raised:
        new_runner(spark, repo, NAME, TestClock(T))
    assert str(raised.value) == (
        f"The process '{NAME}' has engine oozie, which runs on the cluster's Oozie server, and cluster 'primary' has "
        "the workflow interface cron://localhost, which is no Oozie server's URL: write it as "
        "http://oozie:11000/oozie (https:// for TLS).")
    assert not (root / "feed-toolkit").exists() and oozie.calls == []


def test_an_https_stand_in_is_verified_with_the_clusters_ca_file(spark, tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    with stand_in_oozie(tls=(cert, key)) as server:
        repo, root, _ = _oozie_repo(tmp_path, server)
        cluster = repo / "clusters/primary.yaml"
        ca_file = f"  oozie.client.ca-file: {cert}\n"
        cluster.write_text(cluster.read_text().replace("properties:\n", "properties:\n" + ca_file))
        result = new_runner(spark, repo, NAME, TestClock(T)).run(T)
        assert result.status == Status.SUCCEEDED, result.reason
        assert (root / "data/clicks-hourly-summary/2026/11/21/10/_SUCCESS").exists()
        # Without the CA file the server's certificate is not trusted: no job is submitted.
        cluster.write_text(cluster.read_text().replace(ca_file, ""))
        result = new_runner(spark, repo, NAME, TestClock(T), options=RunOptions(force=True), run_id="run2").run(T)
        assert result.status == Status.FAILED
        assert result.reason is not None and result.reason.startswith(
            f"The Oozie server {server.url} cannot be reached (POST jobs): [SSL: CERTIFICATE_VERIFY_FAILED]")
        assert len(server.jobs) == 1


# ------------------------------------------------------------------------------ kill -9, then a rerun

# The killed child's lease: long enough that a child starved of CPU on a busy machine still renews it in time (at
# 2 s, a renewal 1.5 s late lost the lock before the kill point under a full suite), short enough to wait out.
CHILD_LEASE = 8.0

CHILD = ATTACHED_SESSION + """
import sys
from tests.integration.process_runner.process_repo import TestClock, new_runner, utc
from tests.kill_points import dies_at
from toolkit.extensions.workflow_engines.oozie_client import OozieClient

from toolkit.actions.process_runner.batch_runner import BatchRunner

repo, name, method, call, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "batch"
dies_at(OozieClient, method, call)
runner = new_runner(spark, repo, name, TestClock(utc(2026, 11, 22, 12)), run_id="killed", lease=float(sys.argv[6]))
BatchRunner(runner).run() if batch else runner.run(utc(2026, 11, 21, 10))
"""


def _killed_child(spark, repo: Path, name: str, method: str, call: int,  # type: ignore[no-untyped-def]
                  batch: bool = False) -> None:
    """A runner in a process of its own on the test session's JVM (tests/integration/attached_driver.py), killed with
    SIGKILL at the `call`-th call of the Oozie client's `method`, before it runs."""
    killed_on_the_sessions_jvm(spark, CHILD, str(repo), name, method, str(call), "batch" if batch else "instance",
                               str(CHILD_LEASE), cwd=PROJECT, timeout=300)


@pytest.mark.parametrize(("method", "call", "status_when_killed"), [
    ("info", 2, "RUNNING"),  # killed while following the running job
    ("start", 1, "PREP"),  # killed between the job's submission (recorded) and its start
])
def test_a_runner_killed_while_the_stand_in_runs_its_job_is_followed_by_a_rerun_that_submits_nothing(
        spark, oozie: StandInOozie, tmp_path: Path, method: str, call: int, status_when_killed: str) -> None:
    go = tmp_path / "go"
    repo, root, folders = _oozie_repo(tmp_path, oozie, properties=f"  waitFor: {go}\n  exitCode: '0'\n")
    _killed_child(spark, repo, NAME, method, call)
    [job] = oozie.jobs.values()
    assert job.status == status_when_killed
    killed = json.loads((_records(root) / "attempt-001.json").read_text())
    assert (killed["status"], killed["job"]) == ("RUNNING", {"id": job.id, "run_id": "killed", "attempt": 1})
    go.write_text("")
    time.sleep(CHILD_LEASE + 0.5)  # the killed run's lease expires
    result = new_runner(spark, repo, NAME, TestClock(T), run_id="rerun").run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    assert list(oozie.jobs) == [job.id] and job.status == "SUCCEEDED"  # one job: followed, not submitted again
    assert [call for call in oozie.calls if call[0] == "POST"] == [
        ("POST", "/oozie/v2/jobs", {"user.name": "falcon"})]
    first = json.loads((_records(root) / "attempt-001.json").read_text())
    second = json.loads((_records(root) / "attempt-002.json").read_text())
    assert (first["status"], first["run_id"]) == ("KILLED", "killed")
    assert (second["status"], second["run_id"], second["job"]) == (
        "SUCCEEDED", "rerun", {"id": job.id, "run_id": "killed", "attempt": 1, "status": "SUCCEEDED"})
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    assert (output / "part-00000.json").read_text() == "".join(
        (folder / "part-00000.json").read_text() for folder in folders)
    assert [p.name for p in output.parent.iterdir()] == ["10"]  # the killed run's staging was published


def test_a_batch_run_killed_while_the_stand_in_runs_its_job_is_replayed_by_following_it(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    go = tmp_path / "go"
    repo, root, _ = _oozie_repo(tmp_path, oozie, properties=f"  waitFor: {go}\n  exitCode: '0'\n",
                                workflow=WORKFLOW.replace("${summary}", "${daily}"))
    write_batch_consumer(repo, tmp_path)
    consumer = repo / f"processes/{BATCH}.yaml"
    consumer.write_text(consumer.read_text().replace(
        "  engine: pyspark\n  path: workflows/batch_rollup.py\n", "  engine: oozie\n  path: /apps/clicks-count\n")
        .replace("properties:\n", f"properties:\n  waitFor: {go}\n  exitCode: '0'\n"))
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
    events = [publish(ledger, root, "clicks", T), publish(ledger, root, "clicks-hourly-summary", T)]
    _killed_child(spark, repo, BATCH, "info", 2, batch=True)
    [job] = oozie.jobs.values()
    assert (job.status, job.conf["clicks"]) == ("RUNNING", f"file://{root}/data/clicks/2026/11/21/10")
    go.write_text("")
    time.sleep(CHILD_LEASE + 0.5)  # the killed run's claim expires
    result = BatchRunner(new_runner(spark, repo, BATCH, TestClock(utc(2026, 11, 22, 12)), run_id="replay")).run()
    assert (result.status, result.seq) == (Status.SUCCEEDED, 1), result.reason
    assert list(oozie.jobs) == [job.id] and len([c for c in oozie.calls if c[0] == "POST"]) == 1
    attempts = [json.loads(p.read_text())
                for p in sorted((root / f"feed-toolkit/working/ledger/processes/{BATCH}/batches/0000000001")
                                .glob("attempt-*.json"))]
    assert [(a["status"], a["run_id"], a["job"]) for a in attempts] == [
        ("KILLED", "killed", {"id": job.id, "run_id": "killed", "attempt": 1}),
        ("SUCCEEDED", "replay", {"id": job.id, "run_id": "killed", "attempt": 1, "status": "SUCCEEDED"})]
    day = root / "data/clicks-daily/2026/11/21"
    assert (day / "part-00000.json").read_text() == (root / "data/clicks/2026/11/21/10/part-00000.json").read_text()
    assert sorted(attempts[1]["events"]) == sorted(events)


# ------------------------------------------------------------------------------ pig

PIG = """\
#!/bin/sh
# The stand-in's `pig`: -param name=value ... -f SCRIPT; it records its arguments and copies $clicks to $summary.
printf '%s\\n' "$@" > "$PIG_RECEIVED"
for arg in "$@"; do case "$arg" in clicks=*) clicks="${arg#clicks=}";; summary=*) summary="${arg#summary=}";; esac; done
out="${summary#file://}"
mkdir -p "$out"
for path in $(echo "$clicks" | tr ',' ' '); do cat "${path#file://}"/part-*.json; done > "$out/part-00000.json"
"""


def test_a_pig_script_runs_on_the_stand_in_in_falcons_one_action_workflow(
        spark, oozie: StandInOozie, tmp_path: Path) -> None:
    repo, root, folders = _oozie_repo(tmp_path, oozie, engine="pig", path="/apps/pig/count.pig",
                                      properties="  region: eu\n")
    (root / "apps/pig").mkdir(parents=True)
    (root / "apps/pig/count.pig").write_text("clicks = LOAD '$clicks';\nSTORE clicks INTO '$summary';\n")
    pig, received = tmp_path / "pig", tmp_path / "pig-received"
    pig.write_text(textwrap.dedent(PIG))
    pig.chmod(0o755)
    oozie.commands["pig"] = ["/usr/bin/env", f"PIG_RECEIVED={received}", str(pig)]
    result = new_runner(spark, repo, NAME, TestClock(T)).run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    [job] = oozie.jobs.values()
    app = job.conf["oozie.wf.application.path"]
    assert app.startswith(f"file://{root}/feed-toolkit/working/oozie/pig/{NAME}/")
    assert job.app_name == f"{NAME}-pig"
    inputs = ",".join(f"file://{folder}" for folder in folders)
    assert received.read_text().splitlines() == [
        "-param", f"clicks={inputs}", "-param", f"summary={_staging(root, 'run1')}", "-param", "region=eu",
        "-f", f"{root}/apps/pig/count.pig"]
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    assert (output / "part-00000.json").read_text() == "".join(
        (folder / "part-00000.json").read_text() for folder in folders)
    ConfigRepo.load(repo)  # the repo stays valid with engine pig


def test_a_held_instance_has_its_job_suspended_on_the_stand_in_and_resumed_then_published(
        spark, oozie: StandInOozie, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `toolkit suspend --time` while the job runs: the run suspends the job at its next poll and follows it,
    # SUSPENDED, past what would be its timeout (80 polls of a second against minutes(1)): the time held does not
    # count; the step ends meanwhile, and the job takes no further node until `toolkit resume --time` removes the
    # hold and the run resumes it; then it ends and its output is published.
    go = tmp_path / "go"
    repo, root, folders = _oozie_repo(tmp_path, oozie, properties=f"  waitFor: {go}\n  exitCode: '0'\n",
                                      timeout="minutes(1)", poll="1")
    instance = ["--repo", str(repo), "--process", NAME, "--cluster", "primary", "--time", "2026-11-21T10:00Z"]
    said: dict[str, tuple[int, str]] = {}
    held_polls: list[str] = []

    def drive(clock: TestClock) -> None:
        time.sleep(0.02)
        jobs = list(oozie.jobs.values())
        if not jobs:
            return
        job = jobs[0]
        if "suspend" not in said and job.status == "RUNNING":
            code = main(["suspend", *instance, "--reason", "upstream repair"])
            said["suspend"] = (code, capsys.readouterr().out)
        elif job.status == "SUSPENDED" and "resume" not in said:
            go.write_text("")  # the running step ends; the suspended job goes no further
            held_polls.append(job.status)
            if len(held_polls) == 40:
                code = main(["status", *instance[:6], "--now", "2026-11-21T11:00Z", "--format", "json"])
                said["status"] = (code, capsys.readouterr().out)
            if len(held_polls) == 80:
                assert job.step is not None and job.step.poll() == 0  # the step ended long ago
                assert not (root / "data/clicks-hourly-summary/2026/11/21/10").exists()
                code = main(["resume", *instance])
                said["resume"] = (code, capsys.readouterr().out)

    result = new_runner(spark, repo, NAME, TestClock(T, on_sleep=drive)).run(T)
    assert result.status == Status.SUCCEEDED, result.reason
    [job] = oozie.jobs.values()
    assert said["suspend"] == (0, f"Suspended the instance 2026-11-21T10:00Z of process '{NAME}' on cluster 'primary': "
                                  "its run suspends its Oozie workflow job at its next poll (every "
                                  "oozie.client.poll-seconds) and keeps following it until `toolkit resume --process "
                                  f"{NAME} --cluster primary --time 2026-11-21T10:00Z`.\n")
    code, out = said["status"]
    [row] = [row for row in json.loads(out) if row["time"] == "2026-11-21T10:00Z"]
    assert (code, row["status"], row["recorded_status"]) == (0, "SUSPENDED", "RUNNING")
    assert row["hold"].startswith("held by ") and row["hold"].endswith(": upstream repair")
    assert said["resume"][0] == 0 and said["resume"][1].endswith(
        ": upstream repair): its run resumes its Oozie workflow job at its next poll.\n")
    puts = [call[2]["action"] for call in oozie.calls if call[0] == "PUT"]
    assert puts == ["start", "suspend", "resume"]
    assert len(held_polls) == 80 and job.status == "SUCCEEDED"
    output = root / "data/clicks-hourly-summary/2026/11/21/10"
    assert (output / "part-00000.json").read_text() == "".join(
        (folder / "part-00000.json").read_text() for folder in folders)
    assert not (root / "feed-toolkit/working/ledger/processes" / NAME / "holds" / "20261121T1000Z").exists()
