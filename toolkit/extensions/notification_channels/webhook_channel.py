"""A notification as JSON posted to a webhook (chat tools' incoming webhooks) with urllib: one POST with a short
timeout needs no HTTP library. Its property: `notification.webhook.url`, an http(s) URL. The URL often holds a
token: it never appears in an error or a record."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from toolkit.core.entities.model import Cluster
from toolkit.errors import UsageError
from toolkit.extensions.notification_channels.channel import Channel, ChannelError, Message


def read_url(cluster: Cluster) -> str | None:
    url = cluster.properties.get("notification.webhook.url", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"The property 'notification.webhook.url' of cluster '{cluster.name}' is not an http(s) "
                         "URL: give the webhook's full address, e.g. https://chat.example.com/hooks/abc.")
    return url


def post_message(url: str, message: Message, recipients: tuple[str, ...], timeout: float) -> None:
    """POST the message's JSON to `url`; ChannelError unless the answer is 2xx."""
    request = urllib.request.Request(url, data=json.dumps(message.webhook_json(recipients)).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) checked in read_url
            status = response.status
    except urllib.error.HTTPError as err:
        raise ChannelError(f"the webhook answered HTTP {err.code}") from None
    except (urllib.error.URLError, OSError) as err:
        reason = err.reason if isinstance(err, urllib.error.URLError) else err
        raise ChannelError(f"the webhook could not be reached: {reason}") from None
    if not 200 <= status < 300:
        raise ChannelError(f"the webhook answered HTTP {status}")


CHANNEL = Channel(name="webhook", read=read_url, send=post_message, properties=("notification.webhook.url",))
