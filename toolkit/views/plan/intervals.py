"""The instants one validity covers that another does not: what a validity change adds or drops."""

from __future__ import annotations

from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Validity

Interval = tuple[datetime, datetime]  # [start, end)


def outside(kept: Validity, other: Validity) -> tuple[Interval, ...]:
    """The parts of `kept` that `other` does not cover, oldest first (none, one or two intervals)."""
    parts = [(kept.start, min(kept.end, other.start)), (max(kept.start, other.end), kept.end)]
    return tuple((start, end) for start, end in parts if start < end)


def within(t: datetime, intervals: tuple[Interval, ...]) -> bool:
    return any(start <= t < end for start, end in intervals)


def describe(validity: Validity) -> str:
    return f"{format_timestamp(validity.start)}..{format_timestamp(validity.end)}"
