"""The notifications of a feed's actions (replication, retention): a run that fails or times out tells the feed's
`notification` (toolkit/notifications/); the action's status and exit code stay what they are."""

from __future__ import annotations

from datetime import datetime

from toolkit.entities.model import Feed
from toolkit.entities.repo import ConfigRepo
from toolkit.notifications.message import FAILED, TIMEDOUT, Notice, rerun_command
from toolkit.notifications.notifier import Notifier
from toolkit.statuses import Status


def notify_feed_failure(notifier: Notifier, repo: ConfigRepo, feed: Feed, action: str, t: datetime, run_id: str,
                        error: str, timed_out: bool = False, script: str | None = None,
                        more: tuple[str, ...] = ()) -> None:
    """One message about the `action` of `feed` at `t` on the notifier's cluster that failed (or timed out); its
    rerun command calls `entrypoints/<script>.py` (default: the action's name) with `more` arguments."""
    if feed.notification is None:
        return
    cluster = notifier.cluster.name
    notifier.notify(feed.notification, Notice(
        TIMEDOUT if timed_out else FAILED, "feed", feed.name, cluster, t, action,
        Status.TIMEDOUT if timed_out else Status.FAILED, run_id=run_id, error=error,
        rerun=rerun_command(script or action, str(repo.root), "feed", feed.name, cluster, t, more)))
