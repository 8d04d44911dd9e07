"""The one error of the channels."""

from __future__ import annotations


class ChannelError(Exception):
    """A message not sent on one channel: the reason, one sentence without credentials."""
