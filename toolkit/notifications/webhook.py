"""A notification as JSON posted to a webhook (chat tools' incoming webhooks) with urllib: one POST with a short
timeout needs no HTTP library. The URL often holds a token: it never appears in an error or a record."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from toolkit.notifications.errors import ChannelError
from toolkit.notifications.message import Notice


def post_notice(url: str, notice: Notice, recipients: tuple[str, ...], timeout: float) -> None:
    """POST the notice's JSON to `url`; ChannelError unless the answer is 2xx."""
    request = urllib.request.Request(url, data=json.dumps(notice.webhook_json(recipients)).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) checked in settings
            status = response.status
    except urllib.error.HTTPError as err:
        raise ChannelError(f"the webhook answered HTTP {err.code}") from None
    except (urllib.error.URLError, OSError) as err:
        reason = err.reason if isinstance(err, urllib.error.URLError) else err
        raise ChannelError(f"the webhook could not be reached: {reason}") from None
    if not 200 <= status < 300:
        raise ChannelError(f"the webhook answered HTTP {status}")
