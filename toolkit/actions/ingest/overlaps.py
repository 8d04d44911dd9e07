"""Before an ingest run touches a file: its landing and dead-letter folders on the cluster are apart from every
feed's data there (its own included) and from the other feeds' ingest folders. A dead-letter folder inside
another feed's instance folder would write a foreign file into that feed's published instance; lint's FD030 and
FD034 say the same from the same logic (toolkit/core/entities/ingest_folders.py), this holds for a repo never linted.
"""

from __future__ import annotations

from toolkit.core.entities.ingest_folders import Folder, Folders, folders_of
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import UsageError


def require_apart(repo: ConfigRepo, feed: Feed, cluster: Cluster) -> None:
    """UsageError (exit 2), one sentence naming both feeds, the fields and the folder, at the first overlap of
    the feed's ingest folders on `cluster`; nothing without an ingest section."""
    if feed.ingest is None:
        return
    folders = Folders(_folders_on(repo, feed, cluster.name))
    overlap = next(folders.overlaps(feed, own_data=True), None)
    if overlap is not None:
        raise UsageError(f"Feed '{feed.name}': {overlap.sentence(f'cluster {cluster.name!r}')}.")


def _folders_on(repo: ConfigRepo, feed: Feed, cluster: str) -> list[Folder]:
    """The folders of every feed of the repo on `cluster` (and of `feed`, should the repo hold another copy)."""
    feeds = {other.name: other for other in repo.feeds.values()} | {feed.name: feed}
    return [folder for other in feeds.values() if cluster in other.cluster_names
            for folder in folders_of(other, other.locations_on(cluster), other.table_on(cluster))]
