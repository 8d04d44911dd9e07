"""The one textual time format of entities and command lines: `yyyy-MM-ddTHH:mmZ` (UTC)."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from functools import lru_cache

from toolkit.errors import UsageError

TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}Z$"
_TIMESTAMP = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})Z$")
_KEY = re.compile(r"^([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})Z$")


def parse_timestamp(text: str, what: str = "time") -> datetime:
    """`2026-11-21T10:00Z` -> an aware UTC datetime; `what` names the value in the error."""
    match = _TIMESTAMP.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise UsageError(f"Invalid {what} {text!r}: write it as yyyy-MM-ddTHH:mmZ in UTC, e.g. 2026-11-21T10:00Z.")
    year, month, day, hour, minute = (int(g) for g in match.groups())
    try:
        return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)
    except ValueError as err:
        raise UsageError(f"Invalid {what} {text!r}: {err}.") from None


def format_timestamp(value: datetime) -> str:
    """An aware datetime -> `yyyy-MM-ddTHH:mmZ` in UTC (seconds are dropped)."""
    utc = value if value.tzinfo is timezone.utc else value.astimezone(timezone.utc)
    # Not strftime: its %Y is unpadded. %-formatting takes 0.6 of an f-string's time: a retention run formats each of
    # tens of thousands of evicted instances three times.
    return "%04d-%02d-%02dT%02d:%02dZ" % (utc.year, utc.month, utc.day, utc.hour, utc.minute)  # noqa: UP031


def instance_key(t: datetime) -> str:
    """`2026-11-21T10:00Z` -> `20261121T1000Z`: a file name that sorts by time."""
    if t.tzinfo is timezone.utc:
        return _utc_key(t)
    return _key(t.astimezone(timezone.utc))  # not cached: local times a fold apart compare equal


@lru_cache(maxsize=1 << 16)  # a window's times recur for each of its entities
def _utc_key(t: datetime) -> str:
    return _key(t)


def _key(utc: datetime) -> str:
    return f"{utc.year:04d}{utc.month:02d}{utc.day:02d}T{utc.hour:02d}{utc.minute:02d}Z"  # strftime is slower


def parse_instance_key(name: str) -> datetime | None:
    """The time an instance folder stands for, or None for a name that is not one."""
    match = _KEY.match(name)
    if match is None:
        return None
    try:
        year, month, day, hour, minute = (int(g) for g in match.groups())
        return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)
    except ValueError:
        return None
