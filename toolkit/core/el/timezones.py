"""IANA time zones by name, and the two conversions every calendar computation needs.

DST rule (the same as Java's `ZonedDateTime.of`, so Falcon users get what they know):
- a local time that falls in a spring-forward gap is moved later by the length of the gap
  (02:30 on the day clocks jump from 02:00 to 03:00 becomes 03:30);
- a local time that occurs twice (fall back) is the earlier of the two instants.
Python's `fold=0` gives exactly this, so `from_local` is a single conversion.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolkit.errors import UsageError

UTC = timezone.utc


@lru_cache(maxsize=256)
def resolve_zone(name: str) -> ZoneInfo:
    """An IANA zone by name; an unknown name is an error, never a silent UTC."""
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise UsageError(f"Invalid time zone {name!r}: give an IANA name such as UTC or America/Los_Angeles.")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, IsADirectoryError, OSError):
        raise UsageError(
            f"Unknown time zone {name!r}: give an IANA name such as UTC, Europe/Berlin or America/Los_Angeles."
        ) from None


def to_local(instant: datetime, zone: ZoneInfo) -> datetime:
    """The naive wall-clock time in `zone` of an aware instant."""
    return instant.astimezone(zone).replace(tzinfo=None)


def from_local(wall: datetime, zone: ZoneInfo) -> datetime:
    """The UTC instant of a naive wall-clock time in `zone`, by the DST rule of this module."""
    return wall.replace(tzinfo=zone, fold=0).astimezone(UTC)


def exists_locally(wall: datetime, zone: ZoneInfo) -> bool:
    """False for a wall-clock time inside a spring-forward gap (it never shows on a clock in `zone`)."""
    return to_local(from_local(wall, zone), zone) == wall
