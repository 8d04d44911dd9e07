"""The ledgers one lineage query reads, opened once per cluster, and what a feed instance is now.

What an instance is now is its newest dataset event: the kind (published, replaced, evicted) and the fingerprint
the producer recorded. That is the cheap answer (one small folder per instance, no listing of data) and the one
every data-aware reader trusts. An instance with no event at all (written before events existed, or by a producer
that never published it) is fingerprinted from its files when it is a file feed on a cluster this query can read,
with the same function the producers use (`core/instances/availability.py`), so "changed since read" still means
"not the files the run read". A change written behind the toolkit's back without a publication is seen by
`late_check.py`, not here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_files
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import EVICTED, DatasetEvent
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.views.lineage.graph import CHANGED, GONE, UNCHANGED, UNKNOWN, InstanceNode

Opener = Callable[[Cluster], Ledger]
PRESENT, ABSENT = "present", "absent"  # the states of an instance known from its files only


class Ledgers:
    """The clusters' ledgers (opened by `opener`, once each) and the instances read from them (once each)."""

    def __init__(self, repo: ConfigRepo, opener: Opener) -> None:
        self.repo, self.opener = repo, opener
        self._ledgers: dict[str, Ledger | str] = {}
        self._events: dict[tuple[str, str, datetime], list[DatasetEvent]] = {}
        self._instances: dict[tuple[str, str, datetime], InstanceNode] = {}

    def ledger(self, cluster: str) -> Ledger | str:
        """The cluster's ledger, or the sentence saying why it cannot be read (unknown cluster, a file system the
        command line does not read)."""
        if cluster not in self._ledgers:
            try:
                self._ledgers[cluster] = self.opener(self.repo.cluster(cluster))
            except UsageError as err:
                self._ledgers[cluster] = str(err)
        return self._ledgers[cluster]

    def events(self, feed: str, cluster: str, t: datetime) -> list[DatasetEvent]:
        """The instance's dataset events on the cluster, oldest first (none when its ledger cannot be read)."""
        key = (feed, cluster, t)
        if key not in self._events:
            ledger = self.ledger(cluster)
            self._events[key] = ledger.events(feed, t) if isinstance(ledger, Ledger) else []
        return self._events[key]

    def instance(self, feed: str, cluster: str, t: datetime) -> InstanceNode:
        """The instance as it is now (see the module docstring)."""
        key = (feed, cluster, t)
        if key not in self._instances:
            self._instances[key] = self._now(feed, cluster, t)
        return self._instances[key]

    def _now(self, feed: str, cluster: str, t: datetime) -> InstanceNode:
        stamp = format_timestamp(t)
        ledger = self.ledger(cluster)
        if isinstance(ledger, str):
            return InstanceNode(feed, cluster, stamp, UNKNOWN, notes=(ledger,))
        events = self.events(feed, cluster, t)
        if events:
            newest = events[-1]
            return InstanceNode(feed, cluster, stamp, newest.kind, newest.location, newest.fingerprint,
                                newest.event_id, newest.published)
        return self._from_files(feed, cluster, t, ledger)

    def _from_files(self, feed: str, cluster: str, t: datetime, ledger: Ledger) -> InstanceNode:
        stamp = format_timestamp(t)
        entity = self.repo.feeds.get(feed)
        if entity is None or entity.cluster(cluster) is None:
            missing = "in the repo" if entity is None else f"on cluster '{cluster}' in the repo"
            return InstanceNode(feed, cluster, stamp, UNKNOWN, notes=(f"no dataset event, and feed '{feed}' is not "
                                                                      f"defined {missing}",))
        where = feed_locations(entity, self.repo.cluster(cluster))
        if where.is_table:
            return InstanceNode(feed, cluster, stamp, UNKNOWN, where.event_location(t), notes=(
                "no dataset event; a table partition is not read without the metastore",))
        state = probe_files(ledger.fs, where, entity.availability_flag, [t])[t]
        fingerprint = state.fingerprint
        return InstanceNode(feed, cluster, stamp, PRESENT if state.available else ABSENT, state.location,
                            fingerprint, notes=("no dataset event: its files were read",))


def since_read(read: Fingerprint | None, now: InstanceNode) -> str:
    """`unchanged`, `changed` or `evicted`: the fingerprint a run read against the instance's now (gone without an
    eviction is `changed`); `unknown` when either is missing."""
    if now.state == EVICTED:
        return GONE
    if now.state == ABSENT and read is not None:
        return CHANGED
    if read is None or now.fingerprint is None:
        return UNKNOWN
    return UNCHANGED if read.digest == now.fingerprint.digest else CHANGED
