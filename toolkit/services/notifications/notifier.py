"""Sending a notice once: the ledger record `notifications/<kind>/<entity>/<instance>/<key>.json` is created
exclusively before anything is sent (`outcome: sending`), so a second call for the same notice (a retried action,
the SLA check every few minutes) sends nothing; then it is rewritten with the outcome: `sent`, or `failed` with the
reason. A call killed between the two leaves `sending`: that notice may not have gone out, and is not sent again.
A notice that cannot be sent never fails the action: it is recorded and said once on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from functools import partial

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Notification
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.filesystem import FileSystem, StorageError
from toolkit.errors import ToolkitError
from toolkit.extensions.notification_channels.channel import ChannelError
from toolkit.extensions.notification_channels.registry import senders
from toolkit.secrets_masking import masked
from toolkit.services.notifications.message import ATTEMPT_FAILED, SUCCEEDED, Notice
from toolkit.services.notifications.outcomes import FAILED, SENDING, SENT

TIMEOUT_SECONDS = 5.0


def _stderr(line: str) -> None:
    print(masked(line), file=sys.stderr, flush=True)


class Notifier:
    """The notices of one call on one cluster; `sent` and `failed` count them for the status line."""

    def __init__(self, fs: FileSystem, cluster: Cluster, *, timeout: float = TIMEOUT_SECONDS,
                 warn: Callable[[str], None] = _stderr) -> None:
        self.fs, self.cluster, self.timeout, self.warn = fs, cluster, timeout, warn
        self.layout = LedgerLayout.of(cluster)
        self.sent = self.failed = 0

    def counters(self) -> dict[str, int]:
        return {"notifications_sent": self.sent, "notifications_failed": self.failed}

    def notify(self, notification: Notification | None, notice: Notice) -> str | None:
        """Send `notice` to the entity's `notification` unless it was already: `sent`, `failed`, or None when
        there is nobody to tell or it was handled before."""
        if notification is None or not notification.to or not wanted(notification, notice.event):
            return None
        try:
            path = self.layout.notification_record(notice.kind, notice.entity, notice.time, notice.key)
            if not self.fs.create_exclusive(path, _record(notice, notification, SENDING)):
                return None
        except (StorageError, ToolkitError) as err:
            return self._failed(notice, f"its ledger record could not be created: {err}", None)
        channels, reason = self._send(notice, notification.to)
        outcome = FAILED if reason else SENT
        try:
            self.fs.write_atomically(path, _record(notice, notification, outcome, reason, channels))
        except StorageError as err:
            self.warn(f"notification: the outcome of the {notice.event} message about {notice.kind} "
                      f"'{notice.entity}' ({outcome}) could not be recorded in {path}: {err}.")
        if reason:
            return self._failed(notice, reason, path)
        self.sent += 1
        return SENT

    def _send(self, notice: Notice, recipients: tuple[str, ...]) -> tuple[dict[str, str], str | None]:
        """Each channel's outcome (`sent` or why not), and the reasons of those that failed (None: all took it)."""
        try:
            configured = senders(self.cluster)
        except ToolkitError as err:
            return {}, str(err)
        if not configured:
            return {}, (f"the cluster '{self.cluster.name}' has no notification channel: set notification.smtp.host "
                        "or notification.webhook.url in its properties")
        channels = {name: _outcome(partial(send, notice, recipients, self.timeout))
                    for name, send in configured.items()}
        failed = [reason for reason in channels.values() if reason != SENT]
        return channels, "; ".join(failed) or None

    def _failed(self, notice: Notice, reason: str, path: str | None) -> str:
        self.failed += 1
        where = f"; recorded in {path}" if path else ""
        self.warn(f"notification: the {notice.event} message about {notice.kind} '{notice.entity}' "
                  f"{format_timestamp(notice.time)} on '{notice.cluster}' was not sent: {reason}{where}.")
        return FAILED


def wanted(notification: Notification, event: str) -> bool:
    """Failures, timeouts and SLA misses always; a success with `on-success`; a retried attempt with `level:
    attempt`."""
    if event == SUCCEEDED:
        return notification.on_success
    if event == ATTEMPT_FAILED:
        return notification.level == "attempt"
    return True


def _outcome(send: Callable[[], None]) -> str:
    """`sent`, or why not."""
    try:
        send()
    except ChannelError as err:
        return str(err)
    except Exception as err:  # noqa: BLE001 - an address the mail library refuses, say: never fails the action
        return f"{type(err).__name__}: {err}"
    return SENT


def _record(notice: Notice, notification: Notification, outcome: str, reason: str | None = None,
            channels: Mapping[str, str] | None = None) -> bytes:
    document: Mapping[str, object] = {
        "format": 1, "outcome": outcome, "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "to": list(notification.to), "subject": notice.subject, **notice.fields(), "reason": reason,
        "channels": dict(channels or {})}
    return json.dumps(document, indent=2).encode()
