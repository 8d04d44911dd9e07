"""A replication of one instance as lineage datasets (toolkit/services/openlineage/): each source pulled is the feed's
dataset on that source cluster with the instance as its ledger's newest event recorded it (its fingerprint);
the output is the feed's dataset on the target with the instance as published there, and the files and bytes
this run copied, and the data-quality assertions its staged copies were checked against."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolkit.actions.replication.files import FolderOutcome
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.storage.filesystem import FileSystem
from toolkit.planners.replication import Source
from toolkit.services.openlineage.facts import DatasetUse, QualityAssertion
from toolkit.services.runtime.lineage import recorded_fingerprint


def source_uses(fs: FileSystem, feed: Feed, sources: Sequence[Source], instance: datetime) -> list[DatasetUse]:
    return [DatasetUse.at(feed, source.cluster, [instance],
                          {instance: recorded_fingerprint(fs, feed, source.cluster, instance)})
            for source in sources]


def target_use(feed: Feed, target: Cluster, instance: datetime, fingerprint: Fingerprint | None,
               folders: Sequence[FolderOutcome], assertions: tuple[QualityAssertion, ...] = ()) -> DatasetUse:
    return DatasetUse.at(feed, target, [instance], {instance: fingerprint},
                         files=sum(folder.files_copied for folder in folders),
                         bytes=sum(folder.bytes_copied for folder in folders), assertions=assertions)
