"""The OpenLineage spec's date-time, apart from the events (the ledger's lineage records use it, and `toolkit
metrics` reads those records without building an event)."""

from __future__ import annotations

from datetime import datetime, timezone


def iso_instant(when: datetime) -> str:
    """The spec's date-time: ISO 8601 in UTC, to the millisecond."""
    utc = when.astimezone(timezone.utc) if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return utc.isoformat(timespec="milliseconds").replace("+00:00", "Z")
