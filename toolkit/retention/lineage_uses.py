"""A retention run as lineage datasets (toolkit/openlineage/): no inputs; one output, the feed's dataset on the
cluster, with the instances evicted (deleted, or archived away) as its subset and the lifecycle change DROP.
A run that evicts thousands of instances is still one dataset: each instance is a location and a time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from toolkit.entities.model import Cluster, Feed
from toolkit.ledger.records import record_time
from toolkit.openlineage.facts import DatasetUse
from toolkit.retention.run_records import EvictedItem

# The kinds of evicted items that are the instances themselves (the others are a file feed's other locations).
_INSTANCES = ("data", "table")


def evicted_uses(feed: Feed, cluster: Cluster, evicted: Sequence[EvictedItem]) -> list[DatasetUse]:
    """The feed's dataset with the instances `evicted` (the retention result's items), none when none was."""
    times: dict[datetime, None] = {record_time(item.time): None for item in evicted if item.location in _INSTANCES}
    return [DatasetUse.at(feed, cluster, times, dropped=True)] if times else []
