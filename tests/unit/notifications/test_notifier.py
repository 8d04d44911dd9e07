"""The notifier against real servers on loopback: aiosmtpd in each TLS mode (AUTH with the password from an
environment variable or a file), an HTTP webhook receiver; a notice sent once (exclusive ledger record), a server
that cannot be reached recorded as failed and said once on stderr, never raised; no credential written anywhere."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.lineage_receiver import lineage_receiver
from tests.smtp_server import PASSWORD, USER, SmtpServers, free_port
from tests.unit.retention.retention_repo import make_repo
from toolkit.core.entities.model import Cluster, Notification
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.notifications.message import ATTEMPT_FAILED, FAILED, SUCCEEDED, Notice
from toolkit.services.notifications.notifier import Notifier

T = datetime(2026, 11, 21, 10, 0, tzinfo=timezone.utc)
TO = Notification(to=("ops@example.com", "oncall@example.com"))


def cluster_with(tmp_path: Path, properties: dict[str, str]) -> Cluster:
    repo, _ = make_repo(tmp_path)
    cluster = ConfigRepo.load(repo).cluster("primary")
    return replace(cluster, properties={**cluster.properties, **properties})


def notice(event: str = FAILED, run_id: str = "run1", attempt: int = 3) -> Notice:
    return Notice(event, "process", "hourly-clicks-summary", "primary", T, "process", event.upper(), run_id=run_id,
                  attempt=attempt, error="the workflow failed: division by zero",
                  rerun="spark-submit entrypoints/process.py --repo conf --process hourly-clicks-summary "
                        "--cluster primary --time 2026-11-21T10:00Z")


def records(tmp_path: Path) -> list[dict[str, object]]:
    found = sorted((tmp_path / "primary").rglob("ledger/notifications/**/*.json"))
    return [json.loads(path.read_text()) for path in found]


@pytest.mark.parametrize("mode", ["none", "starttls", "ssl"])
def test_each_tls_mode_delivers_one_message(tmp_path: Path, mail: SmtpServers, mode: str) -> None:
    server = getattr(mail, mode)
    notifier = Notifier(LocalFileSystem(), cluster_with(tmp_path, server.properties(mail.ca_file)))
    assert notifier.notify(TO, notice()) == "sent"
    assert len(server.received) == 1
    got = server.received[0]
    assert got.sender == "toolkit@example.com" and got.recipients == ["ops@example.com", "oncall@example.com"]
    assert got.message["Subject"] == "[feed-toolkit] FAILED process hourly-clicks-summary 2026-11-21T10:00Z on primary"
    body = got.message.get_payload(decode=True).decode()
    for line in ("entity: hourly-clicks-summary", "cluster: primary", "instance: 2026-11-21T10:00Z", "attempt: 3",
                 "run id: run1", "error: the workflow failed: division by zero",
                 "to rerun: spark-submit entrypoints/process.py --repo conf --process hourly-clicks-summary"):
        assert line in body
    assert notifier.counters() == {"notifications_sent": 1, "notifications_failed": 0}
    [record] = records(tmp_path)
    assert record["outcome"] == "sent" and record["to"] == ["ops@example.com", "oncall@example.com"]


def test_the_same_notice_is_sent_once(tmp_path: Path, mail: SmtpServers) -> None:
    cluster = cluster_with(tmp_path, mail.none.properties(mail.ca_file))
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "sent"
    again = Notifier(LocalFileSystem(), cluster)
    assert again.notify(TO, notice()) is None
    assert again.counters() == {"notifications_sent": 0, "notifications_failed": 0}
    assert len(mail.none.received) == 1
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice(run_id="run2")) == "sent"  # another run's failure
    assert len(mail.none.received) == 2


def test_auth_with_the_password_from_an_environment_variable(tmp_path: Path, mail: SmtpServers,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FEEDS_SMTP_PASSWORD", PASSWORD)
    cluster = cluster_with(tmp_path, {**mail.starttls.properties(mail.ca_file), "notification.smtp.user": USER,
                                      "notification.smtp.password-env": "FEEDS_SMTP_PASSWORD"})
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "sent"
    assert mail.starttls.logins == [USER] and len(mail.starttls.received) == 1
    assert PASSWORD not in json.dumps(records(tmp_path)) + capsys.readouterr().err


def test_auth_with_the_password_from_a_file(tmp_path: Path, mail: SmtpServers) -> None:
    secret = tmp_path / "smtp-password"
    secret.write_text(PASSWORD + "\n")
    cluster = cluster_with(tmp_path, {**mail.starttls.properties(mail.ca_file), "notification.smtp.user": USER,
                                      "notification.smtp.password-file": str(secret)})
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "sent"
    assert mail.starttls.logins == [USER]


def test_a_wrong_password_is_recorded_without_it(tmp_path: Path, mail: SmtpServers, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FEEDS_SMTP_PASSWORD", "not-the-password")
    cluster = cluster_with(tmp_path, {**mail.starttls.properties(mail.ca_file), "notification.smtp.user": USER,
                                      "notification.smtp.password-env": "FEEDS_SMTP_PASSWORD"})
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "failed"
    [record] = records(tmp_path)
    assert record["outcome"] == "failed" and "535" in str(record["reason"])
    assert "not-the-password" not in json.dumps(record) + capsys.readouterr().err
    assert not mail.starttls.received


def test_an_unset_password_variable_is_said(tmp_path: Path, mail: SmtpServers,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FEEDS_SMTP_PASSWORD", raising=False)
    cluster = cluster_with(tmp_path, {**mail.starttls.properties(mail.ca_file), "notification.smtp.user": USER,
                                      "notification.smtp.password-env": "FEEDS_SMTP_PASSWORD"})
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "failed"
    assert "FEEDS_SMTP_PASSWORD" in str(records(tmp_path)[0]["reason"])


def test_a_server_that_cannot_be_reached_is_recorded_not_raised(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    cluster = cluster_with(tmp_path, {"notification.smtp.host": "127.0.0.1",
                                      "notification.smtp.port": str(free_port())})
    notifier = Notifier(LocalFileSystem(), cluster)
    assert notifier.notify(TO, notice()) == "failed"
    assert notifier.counters() == {"notifications_sent": 0, "notifications_failed": 1}
    [record] = records(tmp_path)
    assert record["outcome"] == "failed" and "Connection refused" in str(record["reason"])
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("notification: the failed message about process "
                                               "'hourly-clicks-summary' 2026-11-21T10:00Z on 'primary' was not sent")
    assert notifier.notify(TO, notice()) is None  # recorded: the next call does not try again


def test_an_untrusted_certificate_fails(tmp_path: Path, mail: SmtpServers) -> None:
    properties = mail.ssl.properties(mail.ca_file)
    del properties["notification.smtp.ca-file"]
    assert Notifier(LocalFileSystem(), cluster_with(tmp_path, properties)).notify(TO, notice()) == "failed"
    assert "CERTIFICATE_VERIFY_FAILED" in str(records(tmp_path)[0]["reason"])
    assert not mail.ssl.received


def test_a_password_in_the_repo_is_refused_at_run_time(tmp_path: Path, mail: SmtpServers,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    cluster = cluster_with(tmp_path, {**mail.none.properties(mail.ca_file), "notification.smtp.user": USER,
                                      "notification.smtp.password": "hunter2"})
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "failed"
    reason = str(records(tmp_path)[0]["reason"])
    assert reason.startswith("The property 'notification.smtp.password' of cluster 'primary' puts a password in")
    assert "hunter2" not in reason + capsys.readouterr().err
    assert not mail.none.received


def test_no_channel_is_recorded(tmp_path: Path) -> None:
    assert Notifier(LocalFileSystem(), cluster_with(tmp_path, {})).notify(TO, notice()) == "failed"
    assert "has no notification channel" in str(records(tmp_path)[0]["reason"])


def test_the_webhook_gets_the_same_fields(tmp_path: Path, mail: SmtpServers) -> None:
    with lineage_receiver("/hooks/abc") as receiver:
        cluster = cluster_with(tmp_path, {**mail.none.properties(mail.ca_file),
                                          "notification.webhook.url": receiver.url + "/hooks/abc"})
        assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "sent"
    [posted] = receiver.events
    assert posted["text"] == "[feed-toolkit] FAILED process hourly-clicks-summary 2026-11-21T10:00Z on primary"
    assert {key: posted[key] for key in ("event", "kind", "entity", "cluster", "instance", "status", "attempt",
                                          "run_id", "error")} == {
        "event": "failed", "kind": "process", "entity": "hourly-clicks-summary", "cluster": "primary",
        "instance": "2026-11-21T10:00Z", "status": "FAILED", "attempt": 3, "run_id": "run1",
        "error": "the workflow failed: division by zero"}
    assert posted["to"] == ["ops@example.com", "oncall@example.com"] and len(mail.none.received) == 1
    assert records(tmp_path)[0]["channels"] == {"smtp": "sent", "webhook": "sent"}


def test_one_channel_down_is_a_failed_notice_naming_it(tmp_path: Path, mail: SmtpServers) -> None:
    cluster = cluster_with(tmp_path, {**mail.none.properties(mail.ca_file),
                                      "notification.webhook.url": f"http://127.0.0.1:{free_port()}/hook"})
    assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "failed"
    [record] = records(tmp_path)
    assert record["channels"]["smtp"] == "sent" and len(mail.none.received) == 1
    assert record["reason"] == record["channels"]["webhook"]
    assert str(record["reason"]).startswith("the webhook could not be reached")


def test_a_webhook_that_answers_500_is_recorded_without_its_url(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    with lineage_receiver("/hooks/token123") as receiver:
        receiver.status = 500
        cluster = cluster_with(tmp_path, {"notification.webhook.url": receiver.url + "/hooks/token123"})
        assert Notifier(LocalFileSystem(), cluster).notify(TO, notice()) == "failed"
    record = records(tmp_path)[0]
    assert record["reason"] == "the webhook answered HTTP 500"
    assert "token123" not in json.dumps(record) + capsys.readouterr().err


def test_success_and_attempts_only_when_asked(tmp_path: Path, mail: SmtpServers) -> None:
    cluster = cluster_with(tmp_path, mail.none.properties(mail.ca_file))
    notifier = Notifier(LocalFileSystem(), cluster)
    assert notifier.notify(TO, notice(SUCCEEDED)) is None
    assert notifier.notify(TO, notice(ATTEMPT_FAILED, attempt=1)) is None
    assert not mail.none.received
    asking = Notification(to=TO.to, on_success=True, level="attempt")
    assert notifier.notify(asking, notice(SUCCEEDED)) == "sent"
    assert notifier.notify(asking, notice(ATTEMPT_FAILED, attempt=1)) == "sent"
    assert [r.message["Subject"].split(" process")[0] for r in mail.none.received] == [
        "[feed-toolkit] SUCCEEDED", "[feed-toolkit] ATTEMPT FAILED"]


def test_a_batch_is_named_and_recorded_apart() -> None:
    batch = Notice(FAILED, "process", "summary-row-counts", "primary", T, "process", "FAILED", run_id="r9",
                   attempt=2, batch=12)
    assert batch.subject == "[feed-toolkit] FAILED process summary-row-counts batch 12 2026-11-21T10:00Z on primary"
    assert batch.key == "batch-12-process-failed-r9"
    assert Notice(ATTEMPT_FAILED, "process", "p", "primary", T, "process", "FAILED", attempt=2, batch=12).key == \
        "batch-12-attempt-002-failed"
    assert Notice("sla-late", "feed", "clicks", "primary", T, "sla", "LATE", late_seconds=5400).fields()[
        "late_by"] == "1h 30m"


def test_an_address_the_mail_library_refuses_is_recorded_not_raised(tmp_path: Path, mail: SmtpServers) -> None:
    injected = Notification(to=("ops@example.com\nBcc: evil@example.com",))
    cluster = cluster_with(tmp_path, mail.none.properties(mail.ca_file))
    assert Notifier(LocalFileSystem(), cluster).notify(injected, notice()) == "failed"
    assert str(records(tmp_path)[0]["reason"]).startswith("ValueError: ")
    assert not mail.none.received
