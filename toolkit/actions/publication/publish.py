"""Publishing a feed instance that an outside producer wrote (Flume, NiFi, another team's tool): check that it is
available as readers would (the feed's availability flag, else its folder; or its partition), fingerprint it and
record its dataset event with producer `external`. The `toolkit publish` command (file:// clusters, file feeds)
and `entrypoints/publish.py` (any cluster, table feeds) both call `publish_instance`, so it lives below both and
starts nothing: the caller brings the file system and, for a table feed, the catalog.

A second call for unchanged content records nothing new (the last event says it already), so an outside
producer may retry a publish freely; changed content is recorded as `replaced`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import DatasetEvent, PublicationFacts
from toolkit.core.ledger.run_locks import HeldLease, holding
from toolkit.core.ledger.store import Ledger
from toolkit.core.ledger.switches import require_no_safemode
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import WaitingError
from toolkit.services.runtime.lifecycle import ActionKind, FeedCall

PRODUCER = "external"
# An outside producer's publication: a lease of the instance's publication while it is checked and its event
# written (a second call at once is told who holds it, exit 5), no lineage run and no failure notice (the producer's
# own scheduler sees the exit code); the feed's suspension does not stop it, as a suspension stops the toolkit's own
# actions, not what others write.
PUBLISH = ActionKind(name="publish", script="publish", job="publish", producer=PRODUCER)


@dataclass(frozen=True)
class Published:
    """The event that records the instance: the one written now, or the earlier one that records this content
    already (`recorded` False)."""

    event: DatasetEvent
    recorded: bool


def publish_instance(repo: ConfigRepo, feed_name: str, cluster_name: str, t: datetime, fs: FileSystem,
                     catalog: Callable[[], Catalog], run_id: str) -> Published:
    """Record the instance `t` of the feed on the cluster as published by an outside producer. UsageError (2)
    for a time that is no instance of the feed there, SkippedError (4) for one outside its validity there;
    WaitingError (3) while it is not available; BlockedError (5) in safemode, or while another call publishes the
    instance (named)."""
    feed, cluster = repo.feed(feed_name), repo.cluster(cluster_name)
    call = FeedCall.of(PUBLISH, repo, feed, cluster, t)  # on the grid (2), inside the validity (4)
    require_no_safemode(fs, cluster)
    ledger = Ledger.of(fs, cluster)
    with holding(ledger.publication_lock(feed.name, t), run_id,
                 f"publication of instance {call.instance} of feed '{feed.name}'",
                 LeaseDetails(time=call.instance)) as lease:
        return _published(call, ledger, lease, fs, catalog, run_id)


def _published(call: FeedCall, ledger: Ledger, lease: HeldLease, fs: FileSystem, catalog: Callable[[], Catalog],
               run_id: str) -> Published:
    feed, cluster, t = call.feed, call.cluster, call.nominal
    owner = f"feed '{feed.name}' on cluster '{cluster.name}'"
    where = feed_locations(feed, cluster)
    state = probe_instance(fs, where, feed.availability_flag, catalog, t)
    location = where.event_location(t)
    if not state.available:
        missing = (f"the partition {location} is not registered" if where.is_table else
                   f"{location}/{feed.availability_flag} does not exist" if feed.availability_flag else
                   f"{location} does not exist")
        raise WaitingError(f"The instance {format_timestamp(t)} of {owner} is not available: {missing}; publish it "
                           "once the producer has finished writing it.")
    fingerprint = state.fingerprint
    # checked right before the event is written: a call stalled past its lease and taken over records nothing
    event = ledger.record_publication(PublicationFacts(feed.name, cluster.name, t, producer=PRODUCER, run_id=run_id,
                                                       location=location, fingerprint=fingerprint,
                                                       definition=call.definition), unless_recorded=True,
                                      guard=lease.check)
    if event is None:
        return Published(ledger.events(feed.name, t)[-1], recorded=False)
    return Published(event, recorded=True)
