"""The delivery loop: the journal entries since the cursor (and the late ones), each publication or replacement
not yet done posted to Airflow as one asset event per form its DAGs need, each claimed before the POST and
recorded after it (deliveries.py), then the cursor moved past what is done.

One notifier per cluster at a time (a lease in the ledger, `locks/airflow-events/`): a second one is told who
holds it (exit 5). The first time Airflow cannot be reached the loop stops: what is left stays pending for the next
call, which first looks up in Airflow each event claimed but not recorded, so that nothing is posted twice.
Evictions are not posted (they make nothing visible). An event whose feed has no asset in Airflow (no DAG
declares its URI), or is no longer in the config repo, is recorded as skipped with why, and not posted later.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from toolkit.core.entities.model import Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.consumption import DEFAULT_LAG
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.locks import LeaseDetails, LeaseLock
from toolkit.core.ledger.records import PUBLISHED, REPLACED, DatasetEvent, event_id_floor, wall_clock_stamp
from toolkit.core.ledger.run_locks import holding
from toolkit.core.ledger.store import Ledger
from toolkit.orchestration.schedule.airflow_events.client import (
    AirflowAsset,
    AirflowClient,
    AirflowCredentialsRefused,
    AirflowRefused,
    AirflowUnreachable,
)
from toolkit.orchestration.schedule.airflow_events.deliveries import (
    DELIVERED,
    SKIPPED,
    Claim,
    Deliveries,
    DoneRecord,
    FormDelivered,
    FormRecord,
)
from toolkit.orchestration.schedule.airflow_events.settings import AirflowSettings
from toolkit.orchestration.schedule.assets import FeedAsset, feed_asset

POSTED_KINDS = (PUBLISHED, REPLACED)
PLAIN, PARTITIONED = "plain", "partitioned"
# A claim's stamp and Airflow's event timestamps come from two clocks: the lookup spans this much around the claim.
LOOKUP_SLACK = timedelta(minutes=10)


@dataclass
class NotifyReport:
    delivered: int = 0  # events whose every form Airflow has now
    pending: int = 0  # events left for the next call
    skipped: dict[str, tuple[str, int]] = field(default_factory=dict)  # feed: (why, how many events)
    would_post: list[str] = field(default_factory=list)  # a dry run's
    unreachable: str | None = None  # why Airflow could not be reached, when it could not
    refused: str | None = None  # why Airflow refused a request about an event (4xx), when it did


def partition_key(t: datetime) -> str:
    """An instance as Airflow 3.3's temporal partition mappers read a key (their default input format
    `%Y-%m-%dT%H:%M:%S`, UTC): an hourly instance maps to its day with StartOfDayMapper."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def notify_airflow(repo: ConfigRepo, cluster: str, ledger: Ledger, settings: AirflowSettings, *,
                   dry_run: bool = False, lag: timedelta = DEFAULT_LAG) -> NotifyReport:
    """Deliver the cluster's new dataset events to Airflow; a dry run says what it would post, contacts nobody,
    takes no lease and writes nothing (but the journal's one-time rebuild)."""
    run_id = uuid.uuid4().hex[:12]
    if dry_run:
        return _Notifier(repo, cluster, ledger, None, run_id, lambda: None).run(lag)
    lock = LeaseLock(ledger.fs, ledger.layout.action_lock_folder("airflow-events"), "lock", ledger.lease_seconds,
                     clock=ledger.clock)
    details = LeaseDetails(action="airflow-events")
    with holding(lock, run_id, f"Airflow notifier of cluster '{cluster}'", details) as held:
        return _Notifier(repo, cluster, ledger, AirflowClient(settings), run_id, held.check).run(lag)


@dataclass(frozen=True)
class _Target:
    """Where a feed's events go: its asset as the toolkit names it, Airflow's (None: no DAG declares it), and the
    forms its DAGs need."""

    asset: FeedAsset
    airflow: AirflowAsset | None
    forms: tuple[str, ...]


class _Notifier:
    def __init__(self, repo: ConfigRepo, cluster: str, ledger: Ledger, client: AirflowClient | None, run_id: str,
                 guard: Callable[[], None]) -> None:
        self.repo, self.cluster, self.ledger, self.client = repo, cluster, ledger, client
        self.run_id, self.guard = run_id, guard
        self.deliveries = Deliveries(ledger.fs, ledger.layout)
        self.targets: dict[str, _Target] = {}
        # asset id: (since, until, its events then): one listing serves the claims of one stretch of time
        self.posted: dict[int, tuple[datetime, datetime, list[dict[str, Any]]]] = {}
        self.report = NotifyReport()

    def run(self, lag: timedelta) -> NotifyReport:
        journal = self.ledger.journal
        journal.ensure_rebuilt()
        position = self.deliveries.cursor()
        if position is None:  # the first call: the events of the last lag window on, never the ledger's history
            position = event_id_floor(int((time.time() - lag.total_seconds()) * 1000))
            if self.client is not None:
                self.deliveries.move_cursor(position)
        entries = journal.entries_since(position, lag)
        candidates = {e.event_id: e for e in [*entries, *journal.late_entries()] if e.kind in POSTED_KINDS}
        done = self.deliveries.done(candidates)
        todo = sorted((e for i, e in candidates.items() if i not in done), key=lambda e: e.event_id)
        if self.client is None:
            self.report.would_post = [self._describe(entry) for entry in todo]
            self.report.pending = len(todo)
            return self.report
        for entry in todo:
            try:
                self._deliver(entry)
                done.add(entry.event_id)
            except AirflowUnreachable as err:
                self.report.unreachable = err.reason
                break
            except AirflowCredentialsRefused:
                raise
            except AirflowRefused as err:  # this event's request refused: it stays pending, the others go on
                self.report.refused = str(err)
        self.report.pending = sum(1 for entry in todo if entry.event_id not in done)
        self._move_cursor(position, entries, {entry.event_id for entry in todo} - done)
        return self.report

    def _deliver(self, entry: JournalEntry) -> None:
        """Post every form of the event Airflow lacks, then record the event done (or skipped, with why);
        AirflowUnreachable leaves it pending."""
        feed = self.repo.feeds.get(entry.feed)
        if feed is None or feed.cluster(self.cluster) is None:
            self._skip(entry, f"the feed is not on cluster '{self.cluster}' in the config repo")
            return
        target = self._target(feed)
        if target.airflow is None:
            self._skip(entry, f"Airflow has no asset with the URI {target.asset.uri} (no DAG declares the asset "
                              f"{target.asset.name})")
            return
        event = self._event(entry)
        if event is None:
            self._skip(entry, "its event record is missing from the ledger")
            return
        forms = []
        for form in target.forms:
            record = self.deliveries.form_record(entry.event_id, form) or self._post(event, target.airflow, form)
            forms.append(FormDelivered(record.form, record.airflow_event_id, record.partition_key))
        self.guard()
        self.deliveries.write_done(DoneRecord(
            entry.event_id, entry.feed, self.cluster, DELIVERED, self.run_id, time=event.time,
            asset_id=target.airflow.asset_id, asset_uri=target.airflow.uri, deliveries=forms,
            delivered=wall_clock_stamp(time.time())))
        self.report.delivered += 1

    def _post(self, event: DatasetEvent, asset: AirflowAsset, form: str) -> FormRecord:
        """Claim the form, post it (unless a claim shows an earlier post that Airflow has), record it."""
        assert self.client is not None
        key = partition_key(event.nominal) if form == PARTITIONED else None
        found = None
        if not self.deliveries.claim(event.event_id, form, self.run_id, time.time()):
            claim = self.deliveries.read_claim(event.event_id, form)
            found = None if claim is None else self._posted_before(asset, event.event_id, key, claim)
        if found is None:
            self.guard()
            found = self.client.post_event(asset.asset_id, key, _extra(event))
        record = FormRecord(event.event_id, form, asset.asset_id, found.get("id"), key, self.run_id,
                            found.get("timestamp"))
        self.guard()
        self.deliveries.write_form(record)
        return record

    def _posted_before(self, asset: AirflowAsset, event_id: str, key: str | None,
                       claim: Claim) -> dict[str, Any] | None:
        """The asset event Airflow holds for this claim (a run killed after its POST), or None."""
        assert self.client is not None
        since, until = claim.claimed - LOOKUP_SLACK, claim.claimed + LOOKUP_SLACK
        cached = self.posted.get(asset.asset_id)
        if cached is None or cached[0] > since or cached[1] < until:
            listed = self.client.events_between(asset.asset_id, _iso(since), _iso(until))
            cached = (since, until, listed)
            self.posted[asset.asset_id] = cached
        for item in cached[2]:
            extra = item.get("extra") or {}
            if (extra.get("event_id") == event_id and extra.get("cluster") == self.cluster
                    and item.get("partition_key") == key):
                return item
        return None

    def _target(self, feed: Feed) -> _Target:
        """The feed's asset in Airflow, resolved once per call, and the forms its DAGs need: `partitioned` for a
        partitioned DAG, `plain` for any other (or when no DAG is scheduled on it: the event still shows)."""
        if feed.name not in self.targets:
            assert self.client is not None
            asset = feed_asset(feed, self.repo.cluster(self.cluster))
            found = self.client.find_asset(asset.uri)
            kinds = [] if found is None else [self.client.partitioned(dag) for dag in found.scheduled_dags]
            forms = ((PARTITIONED,) if any(kinds) else ()) + ((PLAIN,) if not all(kinds) or not kinds else ())
            self.targets[feed.name] = _Target(asset, found, forms)
        return self.targets[feed.name]

    def _event(self, entry: JournalEntry) -> DatasetEvent | None:
        for event in self.ledger.events(entry.feed, entry.time):
            if event.event_id == entry.event_id:
                return event
        return None

    def _skip(self, entry: JournalEntry, why: str) -> None:
        self.guard()
        self.deliveries.write_done(DoneRecord(entry.event_id, entry.feed, self.cluster, SKIPPED, self.run_id,
                                              reason=why, skipped=wall_clock_stamp(time.time())))
        count = self.report.skipped.get(entry.feed, (why, 0))[1]
        self.report.skipped[entry.feed] = (why, count + 1)

    def _describe(self, entry: JournalEntry) -> str:
        feed = self.repo.feeds.get(entry.feed)
        where = ("(the feed is not on this cluster: would be skipped)" if feed is None or feed.cluster(self.cluster)
                 is None else f"to the asset {feed_asset(feed, self.repo.cluster(self.cluster)).uri}")
        return (f"{entry.feed} {entry.time:%Y-%m-%dT%H:%MZ} ({entry.kind}, event {entry.event_id}) {where}, "
                f"partition key {partition_key(entry.time)} for partitioned DAGs")

    def _move_cursor(self, position: str | None, entries: list[JournalEntry], pending: set[str]) -> None:
        """Past every entry read up to the first pending one (never past now: an id from a host whose clock runs
        fast would hide the events published after it); late entries are read by every call anyway."""
        newest = position
        for entry in sorted(entries, key=lambda e: e.event_id):
            if entry.event_id in pending:
                break
            newest = entry.event_id if newest is None else max(newest, entry.event_id)
        if newest is None or newest == position:
            return
        newest = min(newest, event_id_floor(int(time.time() * 1000)))
        self.guard()
        self.deliveries.move_cursor(newest)


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _extra(event: DatasetEvent) -> dict[str, Any]:
    """What Airflow's asset event carries (its `extra`): where the instance is and who produced it; the event id
    is how a retry finds an event posted before."""
    return {"event_id": event.event_id, "feed": event.feed, "cluster": event.cluster, "instance": event.time,
            "kind": event.kind, "location": event.location, "producer": event.producer,
            "producer_run_id": event.run_id, "published": event.published}
