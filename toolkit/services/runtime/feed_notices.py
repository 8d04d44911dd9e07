"""The notifications of a feed's actions (replication, retention): a run that fails or times out tells the feed's
`notification` (toolkit/services/notifications/); the action's status and exit code stay what they are."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.core.entities.model import Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.services.notifications.message import FAILED, TIMEDOUT, Notice, rerun_command
from toolkit.services.notifications.notifier import Notifier
from toolkit.statuses import Status


@dataclass(frozen=True)
class FeedFailure:
    """The `action` of `feed` at `time` that failed (or timed out) in the run `run_id`, saying `error`; its rerun
    command calls `entrypoints/<script>.py` (default: the action's name) with `more` arguments."""

    repo: ConfigRepo
    feed: Feed
    action: str
    time: datetime
    run_id: str
    error: str
    timed_out: bool = False
    script: str | None = None
    more: tuple[str, ...] = ()


def notify_feed_failure(notifier: Notifier, failure: FeedFailure) -> None:
    """One message about `failure` on the notifier's cluster to the feed's `notification`, if it has one."""
    feed, t = failure.feed, failure.time
    if feed.notification is None:
        return
    cluster = notifier.cluster.name
    notifier.notify(feed.notification, Notice(
        TIMEDOUT if failure.timed_out else FAILED, "feed", feed.name, cluster, t, failure.action,
        Status.TIMEDOUT if failure.timed_out else Status.FAILED, run_id=failure.run_id, error=failure.error,
        rerun=rerun_command(failure.script or failure.action, str(failure.repo.root), "feed", feed.name, cluster, t,
                            failure.more)))
