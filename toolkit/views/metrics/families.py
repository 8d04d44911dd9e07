"""The readings of a cluster as Prometheus metric families, through prometheus-client's custom collector: the
ledger is read again at every collection (a scrape of `--listen`, or the one write of `--textfile`).

Labels are bounded: the cluster, the entity's name, its pipelines and its tags (`tag_<key>`, the key's other
characters made `_`), the state or action; never an instance time, and never an empty value (`label_values`).
Counts of instances are over the window, so they are gauges (a counter may not go down when an instance leaves the
window). The samples are prometheus-client's `Sample` records, added with each one's own labels: the text of each is
what the library's `generate_latest` writes (`--listen`'s scrapes are; the one-shot text is written as it would,
toolkit/cli/metrics_text.py)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from toolkit.errors import ToolkitError
from toolkit.views.metrics.cluster_readings import ClusterScope
from toolkit.views.metrics.readings import ClusterReadings, Labels, Window

PREFIX = "feed_toolkit"
# Durations of process instances, in seconds: from a minute's job to a day's.
DURATION_BUCKETS = (30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0, 43200.0, 86400.0)
_NOT_LABEL = re.compile(r"[^a-zA-Z0-9_]")
_DESCRIBED = Window(datetime(1970, 1, 1, tzinfo=timezone.utc), timedelta(days=1))  # describe() names, reads nothing


def tag_label(key: str) -> str:
    """A tag key as a label name: `tag_` and the key, each character a label name cannot hold made `_`."""
    return "tag_" + _NOT_LABEL.sub("_", key)


def label_values(labels: Labels, kind: str) -> dict[str, str]:
    """An entity's labels: the cluster, its name (as `feed` or `process`), its pipelines and its tags. An empty value
    is left out: Prometheus takes a label whose value is empty for no label, so a feed (which has no pipelines) or
    an entity without some tag has no such label, and the text is not made longer for nothing."""
    values = {"cluster": labels.cluster, kind: labels.name}
    if labels.pipeline:
        values["pipeline"] = labels.pipeline
    values.update((tag_label(key), value) for key, value in labels.tags if value)
    return values


def _gauge(name: str, documentation: str) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"{PREFIX}_{name}", documentation)


def _add(family: Metric, labels: dict[str, str], value: float, suffix: str = "") -> None:
    """A sample of the family with these labels (prometheus-client's `Sample`)."""
    family.samples.append(Sample(family.name + suffix, labels, value))


def _histogram(labels: dict[str, str], observed: Sequence[float], family: HistogramMetricFamily) -> None:
    """The samples `HistogramMetricFamily.add_metric` adds (each bucket, the count, the sum), with these labels."""
    ordered = sorted(observed)
    for bound in DURATION_BUCKETS:
        _add(family, {**labels, "le": repr(bound)}, float(bisect_right(ordered, bound)), "_bucket")
    _add(family, {**labels, "le": "+Inf"}, float(len(observed)), "_bucket")
    _add(family, labels, float(len(observed)), "_count")
    _add(family, labels, float(sum(observed)), "_sum")


def feed_families(readings: ClusterReadings) -> Iterator[Metric]:
    published = _gauge("feed_last_published_timestamp_seconds",
                       "When the feed's newest instance got there (wall clock): its publication event, else its "
                       "availability flag's (or folder's) modification time.")
    freshness = _gauge("feed_freshness_seconds",
                       "Now minus the end (time plus frequency) of the newest published instance.")
    stale = _gauge("feed_stale_after_seconds",
                   "The freshness beyond which the next instance is late: the frequency plus slaHigh (0 without).")
    instances = _gauge("feed_instances", "Instances of the window by the kind of their last dataset event "
                       "(unrecorded: none on this cluster).")
    misses = _gauge("feed_sla_misses", "Instances of the window past their slaHigh: missed (not arrived) or late "
                    "(arrived after it); a feed without an SLA on the cluster has none.")
    now = readings.window.now.timestamp()
    for reading in readings.feeds:
        labels = label_values(reading.labels, "feed")
        _add(stale, labels, reading.stale_after)
        if reading.last_published is not None:
            _add(published, labels, reading.last_published)
        if reading.newest_end is not None:
            _add(freshness, labels, max(now - reading.newest_end, 0.0))
        for state, count in reading.instances:
            _add(instances, {**labels, "state": state}, count)
        for state, count in reading.sla_misses:
            _add(misses, {**labels, "state": state}, count)
    yield from (published, freshness, stale, instances, misses)


def process_families(readings: ClusterReadings) -> Iterator[Metric]:
    """A process's instances by status, its newest success and its attempts."""
    instances = _gauge("process_instances", "Instances of the window by the status `toolkit status` shows, in lower "
                       "case.")
    success = _gauge("process_last_success_timestamp_seconds",
                     "When the newest successful instance ended (wall clock).")
    attempts = _gauge("process_attempts", "Attempts of the window's instances (reruns and retries included).")
    for reading in readings.processes:
        labels = label_values(reading.labels, "process")
        for state, count in reading.instances:
            _add(instances, {**labels, "state": state.lower()}, count)
        if reading.last_success is not None:
            _add(success, labels, reading.last_success)
        _add(attempts, labels, reading.attempts)
    yield from (instances, success, attempts)


def process_time_families(readings: ClusterReadings) -> Iterator[Metric]:
    """A process's durations and SLA misses."""
    durations = HistogramMetricFamily(f"{PREFIX}_process_duration_seconds", "How long the window's finished "
                                      "instances ran, their last attempt (a snapshot of the window).")
    misses = _gauge("process_sla_misses", "Instances of the window past shouldEndIn: missed (not succeeded) or "
                    "late (succeeded after it); only a process whose SLA on the cluster has shouldEndIn has them.")
    for reading in readings.processes:
        labels = label_values(reading.labels, "process")
        _histogram(labels, reading.durations, durations)
        for state, count in reading.sla_misses:
            _add(misses, {**labels, "state": state}, count)
    yield from (durations, misses)


def action_families(readings: ClusterReadings) -> Iterator[Metric]:
    last = _gauge("action_last_run_timestamp_seconds", "When the newest run of the action on the feed wrote its "
                  "record (ingest: its newest batch of the window).")
    moved = _gauge("action_bytes", "Bytes of that run: freed (retention), copied (replication), read from landing "
                   "in the window (ingest).")
    files = _gauge("action_files", "Files of that run: instances evicted (retention), files copied (replication), "
                   "files written in the window (ingest).")
    records = _gauge("ingest_records", "Records ingest wrote into the feed's instances in the window.")
    rejected = _gauge("ingest_rejected_records", "Records ingest refused into the dead letters in the window.")
    for reading in readings.actions:
        labels = label_values(reading.labels, "feed")
        of_action = {**labels, "action": reading.action}
        _add(last, of_action, reading.last_run)
        _add(moved, of_action, reading.bytes)
        _add(files, of_action, reading.files)
        if reading.action == "ingest":
            _add(records, labels, reading.records)
            _add(rejected, labels, reading.rejected)
    yield from (last, moved, files, records, rejected)


def lineage_families(readings: ClusterReadings) -> Iterator[Metric]:
    unsent = _gauge("lineage_events_unsent", "OpenLineage events of the window's runs kept in the ledger and not "
                    "taken by the backend (`toolkit lineage resend` sends them).")
    _add(unsent, {"cluster": readings.cluster}, readings.lineage_unsent)
    yield unsent


def notification_families(readings: ClusterReadings) -> Iterator[Metric]:
    failed = _gauge("notifications_failed", "Notices about the window's instances that could not be sent.")
    for labels, kind, count in readings.notifications_failed:
        _add(failed, {"cluster": labels.cluster, "kind": kind, "entity": labels.name}, count)
    yield failed


def window_families(readings: ClusterReadings) -> Iterator[Metric]:
    cluster = {"cluster": readings.cluster}
    window = _gauge("metrics_window_seconds", "The window the instance counts are over.")
    _add(window, cluster, readings.window.length.total_seconds())
    read = _gauge("metrics_read_timestamp_seconds", "When the ledger was read for these metrics: a textfile older "
                  "than its cron line's period is stale.")
    _add(read, cluster, readings.window.now.timestamp())
    yield from (window, read)


def read_ok_families(readings: ClusterReadings) -> Iterator[Metric]:
    yield _read_ok(readings.cluster, 1)


def _read_ok(cluster: str, value: int) -> Metric:
    read = _gauge("metrics_read_ok", "1 when the ledger was read for this collection, 0 when it could not be "
                  "(the toolkit's stderr says why).")
    _add(read, {"cluster": cluster}, value)
    return read


FamilyMaker = Callable[[ClusterReadings], Iterator[Metric]]
# The collection's families, in its order.
MAKERS: tuple[FamilyMaker, ...] = (feed_families, process_families, process_time_families, action_families,
                                   lineage_families, notification_families, window_families, read_ok_families)
# Those whose samples are a part's entities' (the others are the cluster's, read once: `ClusterScope`).
OF_ENTITIES: tuple[FamilyMaker, ...] = (feed_families, process_families, process_time_families, action_families)


@dataclass(frozen=True)
class Families(Collector):
    """The families of readings already read: of a whole collection, or of a part of its entities (the cluster's
    own families in the first part alone)."""

    readings: ClusterReadings
    makers: tuple[FamilyMaker, ...] = MAKERS

    def collect(self) -> Iterator[Metric]:
        for families in self.makers:
            yield from families(self.readings)

    @classmethod
    def part(cls, readings: ClusterReadings, index: int) -> Families:
        """The families of the `index`th part of a collection (`ClusterScope.read`): their texts, joined family by
        family (`metrics_text.joined`), are the whole's; the first part has every family, the others the
        entities'."""
        return cls(readings, MAKERS if index == 0 else OF_ENTITIES)


class LedgerCollector(Collector):
    """Reads the cluster's ledger at each collection (`scope`: what to read, at the current time) and yields every
    family. With `tell`, a ledger that cannot be read (a damaged record, storage gone) is told to it and the
    collection yields `metrics_read_ok` 0 alone, so a server keeps serving and an alert can fire; without, the error
    goes to the caller."""

    def __init__(self, cluster: str, scope: Callable[[], ClusterScope],
                 tell: Callable[[ToolkitError], None] | None = None) -> None:
        self.cluster, self.scope, self.tell = cluster, scope, tell

    def describe(self) -> Iterator[Metric]:
        """Every family the collection yields, named without reading the ledger: the registry keeps the names at
        registration, and selects by them for a scrape that asks for some (`/metrics?name[]=...`)."""
        yield from Families(ClusterReadings(self.cluster, _DESCRIBED, (), (), (), 0, ())).collect()

    def collect(self) -> Iterator[Metric]:
        try:
            readings = self.scope().read()
        except ToolkitError as err:
            if self.tell is None:
                raise
            self.tell(err)
            yield _read_ok(self.cluster, 0)
            return
        yield from Families(readings).collect()
