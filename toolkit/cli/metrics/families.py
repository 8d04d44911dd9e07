"""The readings of a cluster as Prometheus metric families, through prometheus-client's custom collector: the
ledger is read again at every collection (a scrape of `--listen`, or the one write of `--textfile`).

Labels are bounded: the cluster, the entity's name, its pipelines and its tags (`tag_<key>`, the key's other
characters made `_`), the state or action; never an instance time. Counts of instances are over the window, so
they are gauges (a counter may not go down when an instance leaves the window)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from toolkit.cli.metrics.readings import ClusterReadings, Labels, Window
from toolkit.errors import ToolkitError

PREFIX = "feed_toolkit"
# Durations of process instances, in seconds: from a minute's job to a day's.
DURATION_BUCKETS = (30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 14400.0, 43200.0, 86400.0)
_NOT_LABEL = re.compile(r"[^a-zA-Z0-9_]")
_DESCRIBED = Window(datetime(1970, 1, 1, tzinfo=timezone.utc), timedelta(days=1))  # describe() names, reads nothing


def tag_label(key: str) -> str:
    """A tag key as a label name: `tag_` and the key, each character a label name cannot hold made `_`."""
    return "tag_" + _NOT_LABEL.sub("_", key)


class EntityLabels:
    """The label names of one kind's families (its tags' keys, across its entities) and each entity's values."""

    def __init__(self, kind: str, labels: Iterable[Labels]) -> None:
        self.kind = kind
        self.tags = sorted({tag_label(key) for each in labels for key, _ in each.tags})

    @property
    def names(self) -> list[str]:
        return ["cluster", self.kind, "pipeline", *self.tags]

    def values(self, labels: Labels) -> list[str]:
        tags = {tag_label(key): value for key, value in labels.tags}
        return [labels.cluster, labels.name, labels.pipeline, *(tags.get(name, "") for name in self.tags)]


@dataclass(frozen=True)
class LabelNames:
    """The label names of the feeds', the processes' and the actions' families, taken from the whole collection's
    readings: a part of the text that holds some of the entities names the same labels as the others."""

    feed: EntityLabels
    process: EntityLabels
    action: EntityLabels

    @classmethod
    def of(cls, readings: ClusterReadings) -> LabelNames:
        return cls(EntityLabels("feed", (reading.labels for reading in readings.feeds)),
                   EntityLabels("process", (reading.labels for reading in readings.processes)),
                   EntityLabels("feed", (reading.labels for reading in readings.actions)))


def _gauge(name: str, documentation: str, names: Sequence[str]) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"{PREFIX}_{name}", documentation, labels=names)


def _histogram(values: Sequence[str], observed: Sequence[float], family: HistogramMetricFamily) -> None:
    ordered = sorted(observed)
    buckets = [(repr(bound), float(bisect_right(ordered, bound))) for bound in DURATION_BUCKETS]
    family.add_metric(values, [*buckets, ("+Inf", float(len(observed)))], sum_value=float(sum(observed)))


def feed_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    labels = label_names.feed
    names = labels.names
    published = _gauge("feed_last_published_timestamp_seconds",
                       "When the feed's newest instance got there (wall clock): its publication event, else its "
                       "availability flag's (or folder's) modification time.", names)
    freshness = _gauge("feed_freshness_seconds",
                       "Now minus the end (time plus frequency) of the newest published instance.", names)
    stale = _gauge("feed_stale_after_seconds",
                   "The freshness beyond which the next instance is late: the frequency plus slaHigh (0 without).",
                   names)
    instances = _gauge("feed_instances", "Instances of the window by the kind of their last dataset event "
                       "(unrecorded: none on this cluster).", [*names, "state"])
    misses = _gauge("feed_sla_misses", "Instances of the window past their slaHigh: missed (not arrived) or late "
                    "(arrived after it).", [*names, "state"])
    now = readings.window.now.timestamp()
    for reading in readings.feeds:
        values = labels.values(reading.labels)
        stale.add_metric(values, reading.stale_after)
        if reading.last_published is not None:
            published.add_metric(values, reading.last_published)
        if reading.newest_end is not None:
            freshness.add_metric(values, max(now - reading.newest_end, 0.0))
        for state, count in reading.instances:
            instances.add_metric([*values, state], count)
        for state, count in reading.sla_misses:
            misses.add_metric([*values, state], count)
    yield from (published, freshness, stale, instances, misses)


def process_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    """A process's instances by status, its newest success and its attempts."""
    labels = label_names.process
    names = labels.names
    instances = _gauge("process_instances", "Instances of the window by the status `toolkit status` shows, in lower "
                       "case.", [*names, "state"])
    success = _gauge("process_last_success_timestamp_seconds",
                     "When the newest successful instance ended (wall clock).", names)
    attempts = _gauge("process_attempts", "Attempts of the window's instances (reruns and retries included).", names)
    for reading in readings.processes:
        values = labels.values(reading.labels)
        for state, count in reading.instances:
            instances.add_metric([*values, state.lower()], count)
        if reading.last_success is not None:
            success.add_metric(values, reading.last_success)
        attempts.add_metric(values, reading.attempts)
    yield from (instances, success, attempts)


def process_time_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    """A process's durations and SLA misses."""
    labels = label_names.process
    names = labels.names
    durations = HistogramMetricFamily(f"{PREFIX}_process_duration_seconds", "How long the window's finished "
                                      "instances ran, their last attempt (a snapshot of the window).", labels=names)
    misses = _gauge("process_sla_misses", "Instances of the window past shouldEndIn: missed (not succeeded) or "
                    "late (succeeded after it).", [*names, "state"])
    for reading in readings.processes:
        values = labels.values(reading.labels)
        _histogram(values, reading.durations, durations)
        for state, count in reading.sla_misses:
            misses.add_metric([*values, state], count)
    yield from (durations, misses)


def action_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    labels = label_names.action
    names = [*labels.names, "action"]
    last = _gauge("action_last_run_timestamp_seconds", "When the newest run of the action on the feed wrote its "
                  "record (ingest: its newest batch of the window).", names)
    moved = _gauge("action_bytes", "Bytes of that run: freed (retention), copied (replication), read from landing "
                   "in the window (ingest).", names)
    files = _gauge("action_files", "Files of that run: instances evicted (retention), files copied (replication), "
                   "files written in the window (ingest).", names)
    records = _gauge("ingest_records", "Records ingest wrote into the feed's instances in the window.", labels.names)
    rejected = _gauge("ingest_rejected_records", "Records ingest refused into the dead letters in the window.",
                      labels.names)
    for reading in readings.actions:
        values = [*labels.values(reading.labels), reading.action]
        last.add_metric(values, reading.last_run)
        moved.add_metric(values, reading.bytes)
        files.add_metric(values, reading.files)
        if reading.action == "ingest":
            records.add_metric(values[:-1], reading.records)
            rejected.add_metric(values[:-1], reading.rejected)
    yield from (last, moved, files, records, rejected)


def lineage_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    unsent = _gauge("lineage_events_unsent", "OpenLineage events of the window's runs kept in the ledger and not "
                    "taken by the backend (`toolkit lineage resend` sends them).", ["cluster"])
    unsent.add_metric([readings.cluster], readings.lineage_unsent)
    yield unsent


def notification_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    failed = _gauge("notifications_failed", "Notices about the window's instances that could not be sent.",
                    ["cluster", "kind", "entity"])
    for labels, kind, count in readings.notifications_failed:
        failed.add_metric([labels.cluster, kind, labels.name], count)
    yield failed


def window_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    cluster = [readings.cluster]
    window = _gauge("metrics_window_seconds", "The window the instance counts are over.", ["cluster"])
    window.add_metric(cluster, readings.window.length.total_seconds())
    read = _gauge("metrics_read_timestamp_seconds", "When the ledger was read for these metrics: a textfile older "
                  "than its cron line's period is stale.", ["cluster"])
    read.add_metric(cluster, readings.window.now.timestamp())
    yield from (window, read)


def read_ok_families(readings: ClusterReadings, label_names: LabelNames) -> Iterator[Metric]:
    yield _read_ok(readings.cluster, 1)


def _read_ok(cluster: str, value: int) -> Metric:
    read = _gauge("metrics_read_ok", "1 when the ledger was read for this collection, 0 when it could not be "
                  "(the toolkit's stderr says why).", ["cluster"])
    read.add_metric([cluster], value)
    return read


FamilyMaker = Callable[[ClusterReadings, LabelNames], Iterator[Metric]]
# The collection's families, in its order.
MAKERS: tuple[FamilyMaker, ...] = (feed_families, process_families, process_time_families, action_families,
                                   lineage_families, notification_families, window_families, read_ok_families)
# Those whose samples are the entities' (the others have one sample for the cluster): a part of the entities has them.
OF_ENTITIES: tuple[FamilyMaker, ...] = (feed_families, process_families, process_time_families, action_families,
                                        notification_families)


@dataclass(frozen=True)
class Families(Collector):
    """The families of readings already read, or of a part of their entities (`part`): with the label names of the
    whole collection, and the cluster's own families in the first part alone."""

    readings: ClusterReadings
    label_names: LabelNames
    makers: tuple[FamilyMaker, ...] = MAKERS

    def collect(self) -> Iterator[Metric]:
        for families in self.makers:
            yield from families(self.readings, self.label_names)

    @classmethod
    def of(cls, readings: ClusterReadings) -> Families:
        """Every family of the readings, with their own label names."""
        return cls(readings, LabelNames.of(readings))

    def parts(self, count: int) -> list[Families]:
        """The collection cut into `count` parts of about as many entities of each kind, in order: their texts,
        joined family by family, are the whole's (the first part has every family, the others the entities')."""
        return [Families(self.readings.part(index, count), self.label_names,
                         self.makers if index == 0 else tuple(maker for maker in self.makers if maker in OF_ENTITIES))
                for index in range(count)]


class LedgerCollector(Collector):
    """Reads the cluster's ledger at each collection and yields every family. With `tell`, a ledger that cannot be
    read (a damaged record, storage gone) is told to it and the collection yields `metrics_read_ok` 0 alone, so a
    server keeps serving and an alert can fire; without, the error goes to the caller."""

    def __init__(self, cluster: str, read: Callable[[], ClusterReadings],
                 tell: Callable[[ToolkitError], None] | None = None) -> None:
        self.cluster, self.read, self.tell = cluster, read, tell

    def describe(self) -> Iterator[Metric]:
        """Every family the collection yields, named without reading the ledger: the registry keeps the names at
        registration, and selects by them for a scrape that asks for some (`/metrics?name[]=...`)."""
        yield from self._families(ClusterReadings(self.cluster, _DESCRIBED, (), (), (), 0, ()))

    def collect(self) -> Iterator[Metric]:
        try:
            readings = self.read()
        except ToolkitError as err:
            if self.tell is None:
                raise
            self.tell(err)
            yield _read_ok(self.cluster, 0)
            return
        yield from self._families(readings)

    def families(self) -> Families:
        """The ledger read once, and every family of it (errors go to the caller)."""
        return Families.of(self.read())

    @staticmethod
    def _families(readings: ClusterReadings) -> Iterator[Metric]:
        yield from Families.of(readings).collect()
