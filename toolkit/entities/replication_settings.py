"""A feed's replication settings, read from its `properties` (Falcon's names): what the replication action
runs with and what the linter checks (FD023), parsed in one place.

- `timeout`: how long after an instance's time a missing source instance is waited for; a frequency,
  default 6 x the feed's frequency and at least 30 minutes;
- `parallel`: instances in flight in a catch-up window, a whole number >= 1, default 1;
- `maxMaps`: files copied at once, a whole number >= 1, default 4;
- `preservePermission`: `true` (default) or `false`.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.el.frequency import Frequency
from toolkit.entities.model import Feed
from toolkit.entities.timeouts import default_timeout
from toolkit.errors import UsageError

PROPERTIES = ("timeout", "parallel", "maxMaps", "preservePermission")


@dataclass(frozen=True)
class ReplicationSettings:
    timeout: Frequency
    parallel: int
    copy_threads: int
    preserve_permission: bool


def replication_settings(feed: Feed) -> ReplicationSettings:
    """The settings; UsageError (one sentence naming the feed and the property) for a bad value."""
    return ReplicationSettings(timeout=timeout(feed), parallel=positive_int(feed, "parallel", 1),
                               copy_threads=positive_int(feed, "maxMaps", 4),
                               preserve_permission=flag(feed, "preservePermission", True))


def timeout(feed: Feed) -> Frequency:
    text = feed.properties.get("timeout")
    if text is None:
        return default_timeout(feed.frequency)
    try:
        return Frequency.parse(text)
    except UsageError as err:
        raise UsageError(f"The property 'timeout' of feed '{feed.name}': {err}") from None


def positive_int(feed: Feed, name: str, default: int) -> int:
    text = feed.properties.get(name)
    if text is None:
        return default
    if not text.strip().isdigit() or int(text) < 1:
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {text!r}: give a whole number of at "
                         "least 1.")
    return int(text)


def flag(feed: Feed, name: str, default: bool) -> bool:
    text = feed.properties.get(name)
    if text is None:
        return default
    if text.strip().lower() not in ("true", "false"):
        raise UsageError(f"The property {name!r} of feed '{feed.name}' is {text!r}: give true or false.")
    return text.strip().lower() == "true"
