"""What the ingest rules (FD026 to FD035) share: the `ingest` keys a feed's YAML gives (the model fills in
defaults, and an option given for the wrong format is a finding), its columns by name as Spark resolves them
(case-insensitively), and clusters named in a message. Where ingest folders may lie is
toolkit/core/entities/ingest_folders.py, which the ingest run reads too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toolkit.authoring.lint.rules.feed._common import FILES, storages
from toolkit.core.entities.model import Column, Feed


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


def clusters_text(names: Iterable[str]) -> str:
    """`cluster 'primary'` or `clusters 'primary' and 'backup'`, each name once, in order."""
    quoted = [f"'{name}'" for name in dict.fromkeys(names)]
    return ("cluster " if len(quoted) == 1 else "clusters ") + " and ".join(quoted)


def has_file_storage(feed: Feed) -> bool:
    """The feed is stored in files (locations) on at least one of its clusters."""
    return any(storage.kind == FILES for _, _, storage in storages(feed))
