"""What a call of an action works with besides what it acts on, the same for every action: the file system it
reads and writes, the call's run id, the cluster's metastore when a table feed needs one, the lineage and the
notifier it reports to, how long its ledger leases last, and the clock; each runner uses what it needs of it and
its docstring says which. An entrypoint builds it from its action session (`ActionSession.context`) or from the
parts; a test or another caller from the parts, with no Spark where the action needs none. Passing it whole keeps
the runners' signatures to what they act on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolkit.clock import Clock, WallClock
from toolkit.core.ledger.store import DEFAULT_LEASE_SECONDS, Ledger
from toolkit.errors import UsageError
from toolkit.services.openlineage.run import Lineage

if TYPE_CHECKING:
    from toolkit.core.entities.model import Cluster
    from toolkit.core.storage.catalog import Catalog
    from toolkit.core.storage.filesystem import FileSystem
    from toolkit.services.notifications.notifier import Notifier


@dataclass(frozen=True)
class RunContext:
    """One call's file system and run id, and what it reports to (lineage off and no notifier by default)."""

    fs: FileSystem
    run_id: str = ""
    catalog: Catalog | None = None  # the cluster's metastore, for a table feed; None: the call reads files only
    lineage: Lineage = field(default_factory=Lineage.off)
    notifier: Notifier | None = None
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    clock: Clock = field(default_factory=WallClock)  # when the call's records say things happened, how long it waits

    def require_catalog(self, feed: str, cluster: str) -> Catalog:
        """The catalog, for an action on the table feed `feed`; UsageError (exit 2) when the call has none."""
        if self.catalog is None:
            raise UsageError(f"The feed '{feed}' is a table on cluster '{cluster}': this action needs the cluster's "
                             "Hive metastore, run it through its spark-submit entrypoint.")
        return self.catalog

    def ledger(self, cluster: Cluster) -> Ledger:
        """The ledger of `cluster` on this file system, its locks leased for `lease_seconds`."""
        return Ledger.of(self.fs, cluster, lease_seconds=self.lease_seconds)
