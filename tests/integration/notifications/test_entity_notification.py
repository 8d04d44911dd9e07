"""The message of a feed's failed action (retention), as `toolkit/services/runtime/feed_notices.py` sends it, received
by a real SMTP server on loopback (tests/smtp_server.py, whose certificate openssl makes)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from tests.smtp_server import SmtpServers
from tests.unit.retention.retention_repo import make_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.feed_notices import FeedFailure, notify_feed_failure


def test_a_failed_retention_is_told_with_its_rerun(tmp_path: Path, mail: SmtpServers) -> None:
    repo, root = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text() + "notification: {to: data@example.com}\n")
    config = ConfigRepo.load(repo)
    primary = config.cluster("primary")
    cluster = replace(primary, properties={**primary.properties, **mail.none.properties(mail.ca_file)})
    notifier = Notifier(LocalFileSystem(), cluster)
    t = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
    notify_feed_failure(notifier, FeedFailure(config, config.feed("clicks"), "retention", t, "ret1",
                                              "Cannot delete file:///x: permission denied."))
    notify_feed_failure(notifier, FeedFailure(config, config.feed("clicks"), "retention", t, "ret1",
                                              "the same run again"))
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
