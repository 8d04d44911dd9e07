"""The notification channels by name: every `*_channel.py` module of this package defines one `CHANNEL`, found
here, so that adding a channel is adding its module. The cluster-wide checks of `notification.*` properties (an
unknown name, a password in the repo) are made here, once, for the notifier and lint CL007."""

from __future__ import annotations

from functools import cache
from typing import Any

import toolkit.extensions.notification_channels as package
from toolkit.core.entities.model import Cluster
from toolkit.errors import UsageError
from toolkit.extensions.notification_channels.channel import PREFIX, Channel, Sender
from toolkit.plugins import discover


@cache
def channels() -> dict[str, Channel[Any]]:
    """Every channel, by name, in the order of their module names."""
    return discover(package, "_channel", "CHANNEL", Channel)


def known_properties() -> tuple[str, ...]:
    return tuple(name for channel in channels().values() for name in channel.properties)


def refused_properties() -> tuple[str, ...]:
    return tuple(name for channel in channels().values() for name in channel.refused)


def senders(cluster: Cluster) -> dict[str, Sender]:
    """The channels `cluster` sets up, by name; UsageError for a refused, unknown or bad `notification.*`
    property (checked before anything is sent)."""
    props = cluster.properties
    refused = next((name for name in refused_properties() if name in props), None)
    if refused is not None:
        channel = refused.removeprefix(PREFIX).split(".")[0]
        own = channels()[channel].properties
        variable = next(name for name in own if name.endswith("-env"))
        file = next(name for name in own if name.endswith("-file"))
        raise UsageError(f"The property {refused!r} of cluster '{cluster.name}' puts a password in the repo: remove "
                         f"it and name an environment variable ({variable}) or a file ({file}) that holds it.")
    known = set(known_properties())
    unknown = sorted(name for name in props if name.startswith(PREFIX) and name not in known)
    if unknown:
        raise UsageError(f"The property {unknown[0]!r} of cluster '{cluster.name}' is not a notification setting: "
                         f"use one of {', '.join(known_properties())}.")
    found = {name: channel.sender(cluster) for name, channel in channels().items()}
    return {name: sender for name, sender in found.items() if sender is not None}
