"""What a notification channel is: the properties of a cluster it reads, how it reads them, and how it delivers
a message. A channel knows nothing of the ledger or of when to send: the notifier does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from functools import partial
from typing import Generic, Protocol, TypeVar

from toolkit.core.entities.model import Cluster

PREFIX = "notification."
Settings = TypeVar("Settings")


class ChannelError(Exception):
    """A message not sent on one channel: the reason, one sentence without credentials."""


class Message(Protocol):
    """What a channel delivers (the notifier's `Notice`): one subject, the same facts as text and as fields."""

    @property
    def subject(self) -> str: ...

    def email(self, sender: str, recipients: tuple[str, ...]) -> EmailMessage: ...

    def webhook_json(self, recipients: tuple[str, ...]) -> dict[str, object]: ...


# Delivers one message to its recipients within the timeout (seconds); ChannelError says why not.
Sender = Callable[[Message, tuple[str, ...], float], None]


@dataclass(frozen=True, kw_only=True)
class Channel(Generic[Settings]):
    """One channel, named as its properties are (`notification.<name>.*`).

    `read` turns the cluster's properties into the channel's settings: None when the channel is not set up there,
    a UsageError (one sentence naming the cluster and the property, never a secret's value) when a value is bad.
    `send` delivers a message with those settings. `properties` are every property name it reads; `refused` are
    names it refuses outright (a password written in the repo)."""

    name: str
    properties: tuple[str, ...]
    read: Callable[[Cluster], Settings | None]
    send: Callable[[Settings, Message, tuple[str, ...], float], None]
    refused: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        own = f"{PREFIX}{self.name}."
        strays = [name for name in (*self.properties, *self.refused) if not name.startswith(own)]
        if strays:
            raise ValueError(f"The notification channel {self.name!r} reads {strays[0]!r}: its properties start "
                             f"with {own!r}.")

    def sender(self, cluster: Cluster) -> Sender | None:
        """How to send on this channel from `cluster`, or None when the cluster does not set it up."""
        settings = self.read(cluster)
        return None if settings is None else partial(self.send, settings)
