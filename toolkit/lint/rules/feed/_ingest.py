"""What the ingest rules (FD026 to FD030) share: the `ingest` keys a feed's YAML gives (the model fills in
defaults, and an option given for the wrong format is a finding), and its columns by name as Spark resolves them
(case-insensitively)."""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.entities.model import Column, Feed
from toolkit.lint.rules.feed._common import FILES, storages


def ingest_keys(feed: Feed) -> frozenset[str]:
    """The keys written under `ingest` in the feed's file (none without an ingest section)."""
    raw = feed.document.data.get("ingest")
    return frozenset(raw) if isinstance(raw, Mapping) else frozenset()


def columns_by_name(feed: Feed) -> dict[str, tuple[int, Column]]:
    """Lower-cased column name -> (its index in `columns`, the column); the first of names that repeat."""
    found: dict[str, tuple[int, Column]] = {}
    for index, column in enumerate(feed.columns):
        found.setdefault(column.name.lower(), (index, column))
    return found


def has_file_storage(feed: Feed) -> bool:
    """The feed is stored in files (locations) on at least one of its clusters."""
    return any(storage.kind == FILES for _, _, storage in storages(feed))
