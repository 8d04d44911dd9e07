"""The `notification` of an entity as the repo gives it (`on-success`, `level`, the recipients), checked by the
schema; and the message of a feed's failed action (retention), as `toolkit/runtime/feed_notices.py` sends it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from tests.smtp_server import SmtpServers
from tests.unit.retention.retention_repo import make_repo
from toolkit.entities.repo import ConfigRepo
from toolkit.lint.runner import lint_paths
from toolkit.notifications.notifier import Notifier
from toolkit.runtime.feed_notices import notify_feed_failure
from toolkit.storage.local import LocalFileSystem


def with_notification(tmp_path: Path, text: str) -> Path:
    repo, _ = make_repo(tmp_path)
    process = repo / "processes/hourly-clicks-summary.yaml"
    process.write_text(process.read_text() + text)
    return repo


def test_on_success_and_level_reach_the_model(tmp_path: Path) -> None:
    repo = with_notification(tmp_path, "notification:\n  to: 'a@example.com, b@example.com'\n  level: attempt\n"
                                       "  on-success: true\n")
    notification = ConfigRepo.load(repo).process("hourly-clicks-summary").notification
    assert notification is not None
    assert (notification.to, notification.level, notification.on_success) == (
        ("a@example.com", "b@example.com"), "attempt", True)


def test_on_success_defaults_to_false(tmp_path: Path) -> None:
    repo = with_notification(tmp_path, "notification: {to: a@example.com}\n")
    notification = ConfigRepo.load(repo).process("hourly-clicks-summary").notification
    assert notification is not None and notification.on_success is False


def test_on_success_must_be_a_boolean(tmp_path: Path) -> None:
    repo = with_notification(tmp_path, "notification: {to: a@example.com, on-success: sometimes}\n")
    problems = [(p.code, p.file.name) for p in lint_paths([repo]).problems]
    assert problems == [("SC001", "hourly-clicks-summary.yaml")]


def test_a_failed_retention_is_told_with_its_rerun(tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text() + "notification: {to: data@example.com}\n")
    config = ConfigRepo.load(repo)
    primary = config.cluster("primary")
    cluster = replace(primary, properties={**primary.properties, **mail.none.properties(mail.ca_file)})
    notifier = Notifier(LocalFileSystem(), cluster)
    t = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
    notify_feed_failure(notifier, config, config.feed("clicks"), "retention", t, "ret1",
                        "Cannot delete file:///x: permission denied.")
    notify_feed_failure(notifier, config, config.feed("clicks"), "retention", t, "ret1", "the same run again")
    [got] = mail.none.received
    assert str(got.message["Subject"]).strip() == \
        "[feed-toolkit] FAILED retention of feed clicks 2026-11-21T10:00Z on primary"
    body = got.message.get_content()
    assert "error: Cannot delete file:///x: permission denied." in body
    assert f"to rerun: spark-submit entrypoints/retention.py --repo {repo} --feed clicks --cluster primary " \
           "--time 2026-11-21T10:00Z" in body
    assert notifier.counters() == {"notifications_sent": 1, "notifications_failed": 0}
    assert (root / "feed-toolkit/working/ledger/notifications/feed/clicks/20261121T1000Z/"
                   "retention-failed-ret1.json").is_file()
