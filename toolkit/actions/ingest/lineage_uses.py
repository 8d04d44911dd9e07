"""An ingest micro-batch as lineage (toolkit/services/openlineage/): one run of `ingest.<feed>` per batch committed into
the feed, its instance the batch (`<epoch>-<batch id>`, so a replay after a kill shares its parent); no inputs
(the landing folder's files are consumed, not a dataset of the feed); one output, the feed's dataset with the
instances the batch wrote into, the records committed (Spark counted them), the files and their bytes; and the
data-quality assertions of the instances whose closing followed the batch (closing_gate.py), each suite's
expectations as the gate found them, whether the instance was published or held back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.ledger.ingest_book import IngestBatch
from toolkit.core.ledger.records import record_time
from toolkit.core.storage.filesystem import FileSystem
from toolkit.services.openlineage.facts import DatasetUse, QualityAssertion

if TYPE_CHECKING:
    from toolkit.core.ledger.quality_results import GateResult


def batch_uses(fs: FileSystem, feed: Feed, cluster: Cluster, batch: IngestBatch, committed: bool = False,
               results: Sequence[GateResult] = ()) -> list[DatasetUse]:
    """The feed's dataset with the batch's instances; once `committed`, with what it wrote (its files' sizes
    read from where they landed: one status call per file, a batch writes one per instance) and the `results`
    of the gates its closing ran."""
    written = [each for each in batch.files if each.time]  # the dead letters file has no instance
    times: dict[datetime, None] = {record_time(each.time): None for each in written}
    if not committed:
        return [DatasetUse.at(feed, cluster, times)]
    sizes = [fs.status(each.target) for each in written]
    assertions: tuple[QualityAssertion, ...] = ()
    if results:
        from toolkit.services.quality.assertions import assertions_of

        assertions = assertions_of(results)
    return [DatasetUse.at(feed, cluster, times, rows=batch.rows, files=len(written),
                          bytes=sum(status.length for status in sizes if status is not None), assertions=assertions)]
