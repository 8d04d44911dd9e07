"""An ingest micro-batch as lineage (toolkit/openlineage/): one run of `ingest.<feed>` per batch committed into
the feed, its instance the batch (`<epoch>-<batch id>`, so a replay after a kill shares its parent); no inputs
(the landing folder's files are consumed, not a dataset of the feed); one output, the feed's dataset with the
instances the batch wrote into, the records committed (Spark counted them), the files and their bytes."""

from __future__ import annotations

from datetime import datetime

from toolkit.entities.model import Cluster, Feed
from toolkit.ingest.book import BatchRecord
from toolkit.ledger.records import record_time
from toolkit.openlineage.facts import DatasetUse
from toolkit.storage.filesystem import FileSystem


def batch_uses(fs: FileSystem, feed: Feed, cluster: Cluster, batch: BatchRecord,
               committed: bool = False) -> list[DatasetUse]:
    """The feed's dataset with the batch's instances; once `committed`, with what it wrote (its files' sizes
    read from where they landed: one status call per file, a batch writes one per instance)."""
    written = [each for each in batch.batch_files if each.time]  # the dead letters file has no instance
    times: dict[datetime, None] = {record_time(each.time): None for each in written}
    if not committed:
        return [DatasetUse.at(feed, cluster, times)]
    sizes = [fs.status(each.target) for each in written]
    return [DatasetUse.at(feed, cluster, times, rows=batch.rows, files=len(written),
                          bytes=sum(status.length for status in sizes if status is not None))]
