"""Where each ledger record lives under a cluster's working location; the one place that knows the names.

    <working>/ledger/processes/<process>/<yyyyMMddTHHmmZ>/instance.json     the instance's current state
    <working>/ledger/processes/<process>/<yyyyMMddTHHmmZ>/attempt-001.json  one per attempt
    <working>/ledger/processes/<process>/<yyyyMMddTHHmmZ>/attempt-001.stderr  its stderr, capped (attempt_logs.py)
    <working>/ledger/processes/<process>/<yyyyMMddTHHmmZ>/lock.<n>          the instance's lease lock
    <working>/ledger/processes/<process>/<yyyyMMddTHHmmZ>/kill              `toolkit kill`'s request to its run
    <working>/ledger/processes/<process>/<yyyyMMddTHHmmZ>/late-checks.json  late-data checks done
    <working>/ledger/processes/<process>/holds/<yyyyMMddTHHmmZ>            `toolkit suspend --time`'s hold (holds.py)
    <working>/ledger/processes/<process>/rollups/<yyyyMM>.json.gz        the month's closed instances, rolled up
    <working>/ledger/processes/<process>/rollups/lock.<n>                   the roll-up of the process running
    <working>/ledger/processes/<process>/slots/slot-<i>.<n>                 the `parallel` running slots
    <working>/ledger/processes/<process>/batches/<seq>/batch.json           a batch consumer's batch: its state
    <working>/ledger/processes/<process>/batches/<seq>/attempt-001.json     one per attempt at the batch
    <working>/ledger/events/<feed>/<yyyyMMddTHHmmZ>/<event id>.json         a publication or eviction of it
    <working>/ledger/evictions/<feed>/<batch id>~<first>~<last>.json      a retention run's evictions of it
    <working>/ledger/journal/<yyyyMMdd>/<HH>/<event id>~<feed>~<time>~<kind> every event, by publication hour
    <working>/ledger/journal-late/<event id>~<feed>~<time>~<kind>           entries a repair wrote late
    <working>/ledger/journal-rebuilt                                       the journal holds every older event
    <working>/ledger/consumers/<process>/...                                a batch consumer's plans and commits
    <working>/ledger/ingest/<feed>/...                                      a streamed feed's batches and open instances
    <working>/ledger/pending-evictions/<feed>.json                          evictions whose events are not written yet
    <working>/ledger/imports/<feed>/...                                     a feed's database imports
    <working>/ledger/exports/<feed>/...                                     a feed's database exports
    <working>/ledger/hive-exports/<feed>/<yyyyMMddTHHmmZ>.json              a Hive export of an instance of it
    <working>/ledger/hive-imports/<feed>/<yyyyMMddTHHmmZ>.json              a Hive import of an instance of it
    <working>/ledger/locks/replication/<feed>/<yyyyMMddTHHmmZ>/lock.<n>      a replication of an instance into here
    <working>/ledger/locks/retention/<feed>/lock.<n>                         the retention of a feed here
    <working>/ledger/locks/publish/<feed>/<yyyyMMddTHHmmZ>/lock.<n>          `toolkit publish` of an instance
    <working>/ledger/locks/hive-import/<db>.<table>/<partition>/lock.<n>     an import of a partition here
    <working>/ledger/locks/db-import/<feed>[/<yyyyMMddTHHmmZ>]/lock.<n>      a database import of the feed (incremental)
                                                                           or of one instance (full)
    <working>/ledger/locks/db-export/<feed>/<yyyyMMddTHHmmZ>/lock.<n>        a database export of an instance
    <working>/ledger/locks/trigger/lock.<n>                                  the data-trigger sweep of this cluster
    <working>/ledger/locks/lineage-resend/lock.<n>                           `toolkit lineage resend` on this cluster
    <working>/ledger/locks/airflow-events/lock.<n>                           the Airflow notifier of this cluster
    <working>/ledger/triggers/sweep.json                                    what the last sweep read and left due
    <working>/ledger/control/safemode                                       present: every action exits 5
    <working>/ledger/control/suspended/<kind>/<name>                        present: the entity is suspended
    <working>/ledger/lineage/<yyyyMMdd>/<HH>/<run uuid>.json                 a run's OpenLineage events, by start hour
    <working>/ledger/deliveries/<consumer>/...                               events delivered to an outside consumer
                                                                           (toolkit/orchestration/schedule/airflow_events/)
    <working>/ledger/notifications/<kind>/<entity>/<yyyyMMddTHHmmZ>/<event>.json  a notification, created once

Event files are named by their event id (format 1's by their run id), which sorts by publication.
A process's closed instances of months gone by are moved by `toolkit ledger-rollup` from their folders into one
roll-up file per month (rollup_records.py): every reader of instance records reads both, a folder winning.
Instance folders are named by the UTC time (':' is not allowed in HDFS names), so they sort by time. A
partition's folder is its name with every character but letters, digits and '-' written `_xx` (hex).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from toolkit.core.el.templates import PathTemplate, templates_overlap
from toolkit.core.el.timestamps import instance_key
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.feed_locations import under_root
from toolkit.errors import UsageError
from toolkit.uris import normalize_uri

DEFAULT_WORKING = "/feed-toolkit/working"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def working_root(cluster: Cluster) -> str:
    """The cluster's `working` location (else `staging`, else /feed-toolkit/working) under its root."""
    write = cluster.interface("write")
    if write is None:
        raise UsageError(f"The cluster '{cluster.name}' has no write interface: add interfaces.write.endpoint, the "
                         "root of its file system, where the toolkit keeps its run records and ledger.")
    return _working_root(write.endpoint, _working_folder(cluster))


@lru_cache(maxsize=64)
def _working_root(endpoint: str, folder: str) -> str:
    """Worked out once per cluster: the paths of the records of each of thousands of entities start with it."""
    return under_root(normalize_uri(endpoint), folder)


def _working_folder(cluster: Cluster) -> str:
    return (cluster.location("working") or cluster.location("staging") or DEFAULT_WORKING).rstrip("/") or "/"


def require_apart_from_working(feed: Feed, cluster: Cluster) -> None:
    """UsageError (exit 2) when an instance path of a location of `feed` can hold the cluster's working location or
    lie inside it (whatever the linter said): retention would delete the ledger with an instance, compaction move
    it, ingest write among its files."""
    working = _working_folder(cluster)
    if feed.table_on(cluster.name) is not None:
        return
    for kind, text in feed.locations_on(cluster.name).items():
        if templates_overlap(PathTemplate(text), PathTemplate(working)):
            raise UsageError(f"The {kind} location '{text}' of feed '{feed.name}' overlaps the working location "
                             f"'{working}' of cluster '{cluster.name}', where the ledger lives: give them folders "
                             "apart.")


def partition_key(partition: str) -> str:
    """`ds=2026-11-21/region=eu` -> `ds_3d2026-11-21_2fregion_3deu`: a partition name as one folder name, reversibly."""
    return "".join(c if c.isascii() and (c.isalnum() or c == "-") else "".join(
        f"_{byte:02x}" for byte in c.encode()) for c in partition)


def _safe(name: str, what: str) -> str:
    """Entity names become folder names: refuse anything that could climb out of the ledger."""
    if not _NAME.match(name) or ".." in name:
        raise UsageError(f"The {what} name {name!r} cannot name a ledger folder: use letters, digits, '_', '-', '.'.")
    return name


@dataclass(frozen=True)
class LedgerLayout:
    """The ledger of one cluster: `root` is `<cluster root>/<working>/ledger`."""

    root: str

    @classmethod
    def of(cls, cluster: Cluster) -> LedgerLayout:
        return cls(working_root(cluster) + "/ledger")

    def process_folder(self, process: str) -> str:
        return f"{self.root}/processes/{_safe(process, 'process')}"

    def instance_folder(self, process: str, t: datetime) -> str:
        return f"{self.process_folder(process)}/{instance_key(t)}"

    def instance_record(self, process: str, t: datetime) -> str:
        return f"{self.instance_folder(process, t)}/instance.json"

    def attempt_record(self, process: str, t: datetime, attempt: int) -> str:
        return f"{self.instance_folder(process, t)}/attempt-{attempt:03d}.json"

    def kill_request(self, process: str, t: datetime) -> str:
        """`toolkit kill`'s request to the run holding the instance (kill_requests.py)."""
        return f"{self.instance_folder(process, t)}/kill"

    def holds_folder(self, process: str) -> str:
        """The process's held instances, one file each (`toolkit suspend --time`, holds.py)."""
        return f"{self.process_folder(process)}/holds"

    def hold(self, process: str, t: datetime) -> str:
        return f"{self.holds_folder(process)}/{instance_key(t)}"

    def attempt_log(self, process: str, t: datetime, attempt: int) -> str:
        """The attempt's stderr, beside its record (attempt_logs.py)."""
        return f"{self.instance_folder(process, t)}/attempt-{attempt:03d}.stderr"

    def late_checks(self, process: str, t: datetime) -> str:
        return f"{self.instance_folder(process, t)}/late-checks.json"

    def rollup_folder(self, process: str) -> str:
        """A process's monthly roll-ups of closed instances, and the lock of the roll-up (rollup_records.py)."""
        return f"{self.process_folder(process)}/rollups"

    def rollup_record(self, process: str, month: str) -> str:
        """The roll-up of the month `yyyyMM`."""
        return f"{self.rollup_folder(process)}/{month}.json.gz"

    def batch_folder(self, process: str, seq: int) -> str:
        """The runs of a batch consumer's plan `seq` (ten digits, so the folders sort)."""
        return f"{self.process_folder(process)}/batches/{seq:010d}"

    def slots_folder(self, process: str) -> str:
        return f"{self.process_folder(process)}/slots"

    def events_folder(self, feed: str | None = None) -> str:
        """Every feed's events, or one feed's (a folder per instance)."""
        return f"{self.root}/events" if feed is None else f"{self.root}/events/{_safe(feed, 'feed')}"

    def evictions_folder(self, feed: str | None = None) -> str:
        """Every feed's eviction batches, or one feed's (evictions.py)."""
        return f"{self.root}/evictions" if feed is None else f"{self.root}/evictions/{_safe(feed, 'feed')}"

    def pending_evictions(self, feed: str) -> str:
        return f"{self.root}/pending-evictions/{_safe(feed, 'feed')}.json"

    def event_folder(self, feed: str, t: datetime) -> str:
        return f"{self.events_folder(feed)}/{instance_key(t)}"

    def event_record(self, feed: str, t: datetime, event_id: str) -> str:
        return f"{self.event_folder(feed, t)}/{_safe(event_id, 'event id')}.json"

    def journal_folder(self) -> str:
        return f"{self.root}/journal"

    def journal_late_folder(self) -> str:
        return f"{self.root}/journal-late"

    def journal_rebuilt(self) -> str:
        return f"{self.root}/journal-rebuilt"

    def ingest_folder(self, feed: str) -> str:
        """A streamed feed's ingest records: stream.json, instances.json and batches/
        (toolkit/core/ledger/ingest_book.py)."""
        return f"{self.root}/ingest/{_safe(feed, 'feed')}"

    def transfer_folder(self, kind: str, feed: str) -> str:
        """A feed's database `imports` or `exports` (database_transfers.py), its `hive-exports` or `hive-imports`
        (hive_transfers.py)."""
        return f"{self.root}/{_safe(kind, 'transfer')}/{_safe(feed, 'feed')}"

    def consumer_folder(self, process: str) -> str:
        """A batch consumer's queue: plans/, commits/, leases/ and cursor.json (consumption.py)."""
        return f"{self.root}/consumers/{_safe(process, 'process')}"

    def action_lock_folder(self, action: str, *names: str) -> str:
        """The folder of a run-level lock of `action` (replication, retention, hive-import) over `names`."""
        return "/".join([f"{self.root}/locks/{_safe(action, 'action')}", *(_safe(n, action) for n in names)])

    def sweep_state(self) -> str:
        """What the data-trigger sweep remembers (toolkit/orchestration/triggers/state.py)."""
        return f"{self.root}/triggers/sweep.json"

    def lineage_folder(self) -> str:
        """The OpenLineage events of runs, a folder per UTC day and hour of the run's start
        (toolkit/services/openlineage/)."""
        return f"{self.root}/lineage"

    def lineage_hour(self, started: datetime) -> str:
        return f"{self.lineage_folder()}/{started:%Y%m%d}/{started:%H}"

    def lineage_run(self, started: datetime, run_uuid: str) -> str:
        return f"{self.lineage_hour(started)}/{_safe(run_uuid, 'OpenLineage run')}.json"

    def deliveries_folder(self, consumer: str) -> str:
        """The claims and records of the events delivered to an outside consumer (`airflow`), and its cursor."""
        return f"{self.root}/deliveries/{_safe(consumer, 'consumer')}"

    def notifications_folder(self, kind: str, entity: str) -> str:
        """The notification records of an entity: one folder per instance (`toolkit metrics` counts the failed)."""
        return f"{self.root}/notifications/{_safe(kind, 'entity kind')}/{_safe(entity, kind)}"

    def notification_record(self, kind: str, entity: str, t: datetime, event: str) -> str:
        """The record of one notification about an instance (toolkit/services/notifications/), created exclusively."""
        return f"{self.notifications_folder(kind, entity)}/{instance_key(t)}/{_safe(event, 'notification event')}.json"

    def safemode(self) -> str:
        return f"{self.root}/control/safemode"

    def suspended(self, kind: str, name: str) -> str:
        return f"{self.root}/control/suspended/{_safe(kind, 'entity kind')}/{_safe(name, kind)}"
