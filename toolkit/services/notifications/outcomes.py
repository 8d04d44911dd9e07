"""The outcomes a notification record holds (`notifier.py` writes them; `toolkit metrics` counts the failed ones
without loading the channels that send)."""

from __future__ import annotations

SENDING, SENT, FAILED = "sending", "sent", "failed"
