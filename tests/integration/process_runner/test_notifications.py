"""Process instances that tell people, with real Spark and a real SMTP server on loopback (aiosmtpd): a workflow
that fails sends one message after its retries (one per failed attempt with `level: attempt`), a timeout one, a
success one only with `on-success`; through spark-submit, an SMTP server that is down changes neither the exit
code nor the status, and the status line counts the messages not sent."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from tests.smtp_server import SmtpServers, free_port
from toolkit.core.storage.filesystem import StorageError

T = utc(2026, 11, 21, 10)
NOTIFICATIONS = "feed-toolkit/working/ledger/notifications/process"
FAILING = '''
def run(spark, ctx):
    spark.range(3).write.json(ctx.outputs["summary"])
    if ctx.nominal_time.hour == 10:
        raise ValueError("bad row")
'''


def notifying_process(repo: Path, name: str, notification: str, smtp_properties: dict[str, str]) -> str:
    """A copy of hourly-clicks-summary running FAILING (3 attempts), with `notification`; the cluster's SMTP."""
    (repo / "workflows" / f"{name}.py").write_text(FAILING)
    text = (repo / "processes/hourly-clicks-summary.yaml").read_text()
    text = text.replace("name: hourly-clicks-summary", f"name: {name}", 1)
    text = text.replace("path: workflows/hourly_clicks_summary.py", f"path: workflows/{name}.py")
    (repo / "processes" / f"{name}.yaml").write_text(text + notification)
    cluster = repo / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text() + "".join(f'  {key}: "{value}"\n' for key, value in smtp_properties.items()))
    return name


def test_a_failed_instance_sends_one_message_after_its_retries(spark, tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = notifying_process(repo, "told", "notification: {type: email, to: 'ops@example.com, dev@example.com'}\n",
                             mail.none.properties(mail.ca_file))
    clock = TestClock(T)
    result = new_runner(spark, repo, name, clock, run_id="runfail").run(T)
    assert (result.status, result.attempts) == ("FAILED", 3)
    [got] = mail.none.received
    assert got.recipients == ["ops@example.com", "dev@example.com"]
    assert got.message["Subject"] == "[feed-toolkit] FAILED process told 2026-11-21T10:00Z on primary"
    body = got.message.get_content()
    for line in ("entity: told", "cluster: primary", "status: FAILED", "attempt: 3", "run id: runfail",
                 f"to rerun: spark-submit entrypoints/process.py --repo {repo} --process told --cluster primary "
                 "--time 2026-11-21T10:00Z"):
        assert line in body
    assert "ValueError: bad row" in body
    record = json.loads((root / NOTIFICATIONS / "told/20261121T1000Z/process-failed-runfail.json").read_text())
    assert (record["outcome"], record["to"]) == ("sent", ["ops@example.com", "dev@example.com"])


def test_level_attempt_sends_one_message_per_failed_attempt(spark, tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = notifying_process(repo, "chatty", "notification: {to: ops@example.com, level: attempt}\n",
                             mail.none.properties(mail.ca_file))
    assert new_runner(spark, repo, name, TestClock(T)).run(T).status == "FAILED"
    assert [str(r.message["Subject"]).strip() for r in mail.none.received] == [
        "[feed-toolkit] ATTEMPT FAILED process chatty 2026-11-21T10:00Z on primary",
        "[feed-toolkit] ATTEMPT FAILED process chatty 2026-11-21T10:00Z on primary",
        "[feed-toolkit] FAILED process chatty 2026-11-21T10:00Z on primary"]
    assert ["attempt: 1" in r.message.get_content() for r in mail.none.received] == [True, False, False]


def test_success_is_told_only_with_on_success(spark, tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path)
    later = T + timedelta(hours=1)  # FAILING succeeds at 11:00
    write_clicks(root, T - timedelta(hours=2), 4)
    quiet = notifying_process(repo, "quiet", "notification: {to: ops@example.com}\n", {})
    loud = notifying_process(repo, "loud", "notification: {to: ops@example.com, on-success: true}\n",
                             mail.none.properties(mail.ca_file))
    assert new_runner(spark, repo, quiet, TestClock(later)).run(later).status == "SUCCEEDED"
    assert not mail.none.received
    assert new_runner(spark, repo, loud, TestClock(later)).run(later).status == "SUCCEEDED"
    [got] = mail.none.received
    assert got.message["Subject"] == "[feed-toolkit] SUCCEEDED process loud 2026-11-21T11:00Z on primary"
    assert "to rerun" not in got.message.get_content()


def test_a_timed_out_instance_is_told(spark, tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 2)  # hour 10 never comes
    name = notifying_process(repo, "waiting", "notification: {to: ops@example.com}\n",
                             mail.none.properties(mail.ca_file))
    assert new_runner(spark, repo, name, TestClock(T + timedelta(hours=4))).run(T).status == "TIMEDOUT"
    [got] = mail.none.received
    assert got.message["Subject"] == "[feed-toolkit] TIMEDOUT process waiting 2026-11-21T10:00Z on primary"
    assert "timed out at 2026-11-21T14:00Z" in got.message.get_content()


def test_an_smtp_server_that_is_down_changes_no_exit_code(run_entrypoint, tmp_path: Path) -> None:
    """The whole entrypoint: a window of a failing and a succeeding instance exits 1 with its status, the SMTP
    server down; both messages are recorded as failed, counted in the status line and said on stderr."""
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 4)
    notifying_process(repo, "unheard", "notification: {to: ops@example.com, on-success: true}\n",
                      {"notification.smtp.host": "127.0.0.1", "notification.smtp.port": str(free_port())})
    text = (repo / "processes/unheard.yaml").read_text()
    (repo / "processes/unheard.yaml").write_text(text.replace("policy: periodic\n  delay: minutes(5)\n  attempts: 3",
                                                              "policy: periodic\n  delay: minutes(5)\n  attempts: 1"))
    run = run_entrypoint("process", "--repo", str(repo), "--process", "unheard", "--cluster", "primary", "--from",
                         "2026-11-21T10:00Z", "--to", "2026-11-21T11:00Z", "--now", "2026-11-21T11:05Z", cwd=tmp_path)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    status = json.loads(run.stdout.strip().splitlines()[-1])
    assert status["status"] == "FAILED"
    assert [i["status"] for i in status["instances"]] == ["FAILED", "SUCCEEDED"]
    assert (status["notifications_sent"], status["notifications_failed"]) == (0, 2)
    # the sentences are looked for in both streams, as spark-submit may merge the driver's stderr into its stdout
    said = [line for line in (run.stdout + run.stderr).splitlines() if line.startswith("notification: ")]
    assert len(said) == 2 and all("Connection refused" in line for line in said)
    outcomes = sorted(json.loads(p.read_text())["outcome"] for p in (root / NOTIFICATIONS / "unheard").rglob("*.json"))
    assert outcomes == ["failed", "failed"]


def test_a_run_that_fails_outside_its_attempts_tells_the_notification_once(spark, tmp_path: Path,
                                                                           mail: SmtpServers) -> None:
    """A failure no attempt catches (a damaged ledger: a folder where the instance's record belongs, which a
    colleague's copy left) ends the run with its error (exit 1) and is told as FAILED, as a feed action's is."""
    repo, root = make_repo(tmp_path)
    write_clicks(root, T - timedelta(hours=2), 3)
    name = notifying_process(repo, "damaged", "notification: {to: ops@example.com}\n",
                             mail.none.properties(mail.ca_file))
    record = root / "feed-toolkit/working/ledger/processes/damaged/20261121T1000Z/instance.json"
    (record / "left-by-a-copy").mkdir(parents=True)
    with pytest.raises(StorageError, match="instance.json") as raised:
        new_runner(spark, repo, name, TestClock(T), run_id="rundamaged").run(T)
    [got] = mail.none.received
    assert got.message["Subject"] == "[feed-toolkit] FAILED process damaged 2026-11-21T10:00Z on primary"
    body = got.message.get_content()
    assert "run id: rundamaged" in body and str(raised.value) in body
    assert sorted(path.name for path in record.iterdir()) == ["left-by-a-copy"]  # nothing written over it


def test_a_batch_run_that_fails_outside_its_attempts_tells_the_notification_once(spark, tmp_path: Path,
                                                                                 mail: SmtpServers) -> None:
    """A batch consumer's run goes through the same lifecycle (batch_lifecycle): a failure no attempt catches (a
    folder where the batch's first attempt record belongs) ends the run with its error and is told as FAILED of
    the batch, once, with the call that runs the next batch."""
    from tests.integration.process_runner.batch_consumer import NAME, publish, write_batch_consumer
    from toolkit.actions.process_runner.batch_runner import BatchRunner
    from toolkit.actions.process_runner.run_results import RunOptions

    repo, root = make_repo(tmp_path)
    write_batch_consumer(repo, tmp_path)
    process = repo / "processes" / f"{NAME}.yaml"
    process.write_text(process.read_text() + "notification: {to: ops@example.com}\n")
    cluster = repo / "clusters/primary.yaml"
    cluster.write_text(cluster.read_text() + "".join(
        f'  {key}: "{value}"\n' for key, value in mail.none.properties(mail.ca_file).items()))
    runner = new_runner(spark, repo, NAME, TestClock(T + timedelta(days=1)), RunOptions(max_retry_delay=0),
                        run_id="rundamaged")
    publish(runner.ledger, root, "clicks", T)
    publish(runner.ledger, root, "clicks-hourly-summary", T)
    record = root / f"feed-toolkit/working/ledger/processes/{NAME}/batches/0000000001/attempt-001.json"
    (record / "left-by-a-copy").mkdir(parents=True)
    with pytest.raises(StorageError, match="attempt-001.json") as raised:
        BatchRunner(runner).run()
    [got] = mail.none.received
    assert got.message["Subject"] == f"[feed-toolkit] FAILED process {NAME} batch 1 2026-11-21T10:00Z on primary"
    body = got.message.get_content()
    assert "run id: rundamaged" in body and str(raised.value) in body and "--batch" in body
    assert sorted(path.name for path in record.iterdir()) == ["left-by-a-copy"]  # nothing written over it
