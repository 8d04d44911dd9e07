"""What one ingest call works with, fixed from the moment it holds the feed's ingest lease to its end: built once
by the runner and handed whole to the parts that read, check and close batches, instead of each taking the same
dozen arguments."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from toolkit.entities.ingest_settings import IngestSettings
    from toolkit.entities.model import Cluster, Feed
    from toolkit.entities.provenance import Provenance
    from toolkit.entities.repo import ConfigRepo
    from toolkit.ingest.book import IngestBook
    from toolkit.ingest.targets import Targets
    from toolkit.instances.feed_locations import FeedLocations
    from toolkit.ledger.run_locks import HeldLease
    from toolkit.ledger.store import Ledger
    from toolkit.notifications.notifier import Notifier
    from toolkit.openlineage.run import Lineage
    from toolkit.storage.catalog import Catalog
    from toolkit.storage.filesystem import FileSystem


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
    clock: Callable[[], float]
    lineage: Lineage
    notifier: Notifier | None
    definition: Provenance  # the feed's, computed once: in every commit, event and lineage run of the call
