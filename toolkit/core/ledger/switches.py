"""The check every action makes before it touches data: safemode on the cluster (exit 5) or the entity
suspended there (exit 4), as `toolkit safemode` and `toolkit suspend` set them in the cluster's ledger."""

from __future__ import annotations

from toolkit.core.entities.model import Cluster
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import BlockedError, SkippedError


def require_no_safemode(fs: FileSystem, cluster: Cluster) -> None:
    safemode = Control(fs, LedgerLayout.of(cluster)).safemode()
    if safemode.on:
        raise BlockedError(f"Cluster '{cluster.name}' is in safemode (since {safemode.since}): nothing runs there "
                           "until `toolkit safemode off`.")


def require_running_allowed(fs: FileSystem, cluster: Cluster, kind: str, name: str) -> None:
    """Safemode first (exit 5), then the entity's suspension on this cluster (exit 4)."""
    require_no_safemode(fs, cluster)
    suspended = Control(fs, LedgerLayout.of(cluster)).suspension(kind, name)
    if suspended.on:
        raise SkippedError(f"The {kind} '{name}' is suspended on cluster '{cluster.name}' (since {suspended.since}): "
                           f"`toolkit resume {name}` to run it again.")
