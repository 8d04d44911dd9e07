"""What one ingest call works with, fixed from the moment it holds the feed's ingest lease to its end: built once
by the runner and handed whole to the parts that read, check and close batches, instead of each taking the same
dozen arguments."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.actions.ingest.targets import Targets
    from toolkit.clock import Clock
    from toolkit.core.entities.ingest_settings import IngestSettings
    from toolkit.core.entities.model import Cluster, Feed
    from toolkit.core.entities.provenance import Provenance
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.instances.feed_locations import FeedLocations
    from toolkit.core.ledger.ingest_book import IngestBook
    from toolkit.core.ledger.run_locks import HeldLease
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.catalog import Catalog
    from toolkit.core.storage.filesystem import FileSystem
    from toolkit.services.notifications.notifier import Notifier
    from toolkit.services.openlineage.run import Lineage


@dataclass(frozen=True)
class IngestCall:
    """One ingest call of `feed` on `cluster`: its session and file system, where the feed lives (`where`,
    `targets`, the `landing` folder), its ledger, `book` and held `lease`, and what it reports to."""

    spark: SparkSession
    fs: FileSystem
    repo: ConfigRepo
    feed: Feed
    cluster: Cluster
    where: FeedLocations
    targets: Targets
    catalog: Callable[[], Catalog]  # the cluster's catalog, asked for only by a table feed
    landing: str
    settings: IngestSettings
    ledger: Ledger
    book: IngestBook
    lease: HeldLease
    run_id: str
    clock: Clock
    lineage: Lineage
    notifier: Notifier | None
    definition: Provenance  # the feed's, computed once: in every commit, event and lineage run of the call
