"""A retention run as lineage datasets (toolkit/services/openlineage/): no inputs; one output, the feed's dataset on the
cluster, with the instances evicted (deleted, or archived away) as its subset and the lifecycle change DROP.
A run that evicts thousands of instances is still one dataset: each instance is a location and a time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.ledger.records import record_time
from toolkit.core.ledger.retention_runs import EvictedItem
from toolkit.services.openlineage.facts import DatasetUse

# The kinds of evicted items that are the instances themselves (the others are a file feed's other locations).
_INSTANCES = ("data", "table")


def evicted_uses(feed: Feed, cluster: Cluster, evicted: Sequence[EvictedItem]) -> list[DatasetUse]:
    """The feed's dataset with the instances `evicted` (the retention result's items), none when none was."""
    times: dict[datetime, None] = {record_time(item.time): None for item in evicted if item.location in _INSTANCES}
    return [DatasetUse.at(feed, cluster, times, dropped=True)] if times else []
