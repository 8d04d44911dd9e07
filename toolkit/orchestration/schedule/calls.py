"""The calls that keep a cluster's entities running, with Falcon's cadences: what a scheduler must start, how
often, and with which arguments (the time aside). Every format (crontab, Oozie, Airflow) renders this list.

Besides the command, a call carries what a scheduler's controls need: how many instances may run at once (the
process's `parallel`, the feed's replication `parallel`), how long a waiting instance may be called again (the
process's or the feed's replication `timeout`, else Falcon's default: an export's), and the feeds it reads and
writes as assets on their clusters (assets.py), with whether a success means its outlets got new data (a process
instance, a replication pull, an import, an ingest hour; not a late-data check, which mostly finds nothing late,
nor retention, which deletes, nor an export, which writes only into a database).

- a process instance, every frequency from its validity start on the cluster, in its zone (not for `trigger:
  data` processes: the data-trigger sweep starts them);
- its late-data check, every `late-process` delay;
- retention of each feed the cluster keeps (core/instances/retention_cadence.py: Falcon's rule, or the lifecycle or a
  feed property); or, with `RetentionCalls.PER_CLUSTER`, one call for them all (`--all`), every hour (or at the
  finest feed's cadence when finer), which retains each feed at its own cadence's latest instant not yet retained;
- replication of each feed the cluster is a target of, one call per source, every feed frequency from the
  target's validity start shifted by its `delay` (the entrypoint pulls the instance at the call's time minus it);
- the database import and export of each feed whose cluster entry has an `import` or an `export` (TRANSFERS): one
  call per instance, the feed's frequency from its validity start on the cluster to its end, in its zone, as
  Falcon's import and export coordinators (FeedImportCoordinatorBuilder, FeedExportCoordinatorBuilder), which
  ignore the cluster's `delay`; so do these: the entrypoints take `--time` as the instance itself. An export is
  called one period after its instance, once it has ended (`lag`: `toolkit call --lag 1` passes the instance
  before the firing's), and waits up to a period for it to be published; then it exits 3, which each format
  treats as every waiting call (Airflow reschedules it until the wait limit, Oozie retries it, cron calls the next
  instance at the next firing);
- the data-trigger sweep, every minute, when a process on the cluster has `trigger: data` or the cluster posts the
  ledger's events to Airflow (`trigger.notify: airflow`: the sweep posts them);
- ingest of each streamed feed, every hour, ingesting for the hour;
- the SLA check, every 5 minutes, when an entity on the cluster declares an SLA;
- the ledger's roll-up of past months (`toolkit ledger-rollup`), daily, when a process runs on the cluster;
- the cluster's Prometheus metrics (`toolkit metrics --textfile`), every 5 minutes, when the cluster sets the
  folder of node_exporter's textfile collector in `metrics.textfile`;
- the status page (`toolkit report`), every 5 minutes, when the cluster sets the page's file on the scheduler's
  host in `report.out` (docs/report.md; lint CL010 checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.host_paths import METRICS_TEXTFILE, REPORT_OUT, host_path
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import (
    Cluster,
    Datasource,
    Export,
    Feed,
    FeedCluster,
    FeedClusterType,
    Import,
    Process,
    Validity,
)
from toolkit.core.entities.replication_settings import replication_settings
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.entities.timeouts import default_timeout, process_timeout
from toolkit.core.instances.retention_cadence import retention_frequency
from toolkit.orchestration.schedule.airflow_events.settings import notify_targets
from toolkit.orchestration.schedule.assets import FeedAsset, feed_asset
from toolkit.orchestration.schedule.cadence import CLOCK, Cadence, instance_cadence
from toolkit.orchestration.schedule.written_values import refuse_unwritable
from toolkit.services.datasource_access.endpoints import FOR_EXPORT, FOR_IMPORT, Purpose, driver_jars
from toolkit.services.runtime.cluster_files import reachable_without_jvm
from toolkit.services.runtime.jvm_free import retention_without_jvm

EVERY_MINUTE = Frequency(TimeUnit.MINUTES, 1)
SLA_CHECK = Frequency(TimeUnit.MINUTES, 5)
REPORT = Frequency(TimeUnit.MINUTES, 5)
ROLLUP = Frequency(TimeUnit.DAYS, 1)
METRICS = Frequency(TimeUnit.MINUTES, 5)  # node_exporter's textfile: Prometheus's usual scrape is a minute
INGEST_RESTART = Frequency(TimeUnit.HOURS, 1)
INGEST_SECONDS = 3540  # an hour less a minute: the next call starts as this one stops


class RetentionCalls(str, Enum):
    """How a cluster's retention is scheduled: a call per feed at its own cadence, or one call for the cluster."""

    PER_FEED = "per-feed"
    PER_CLUSTER = "per-cluster"


# The cadence of a cluster's one retention call: each feed is retained within this long of its own instant.
CLUSTER_RETENTION = Frequency(TimeUnit.HOURS, 1)


class Program(str, Enum):
    SPARK_SUBMIT = "spark-submit"  # an entrypoint: `spark-submit <submit args> entrypoints/<script> ...`
    TOOLKIT = "toolkit"  # a `toolkit` command, which starts no JVM


@dataclass(frozen=True)
class Call:
    """One scheduled call. `name` is unique on the cluster and names the generated files (`process-clicks`);
    `arguments` follow the program (and the entrypoint); the time goes in `time_option` when there is one."""

    name: str
    action: str
    entity: EntityRef | None
    cadence: Cadence
    program: Program
    arguments: tuple[str, ...]
    why: str
    script: str | None = None  # the entrypoint, for Program.SPARK_SUBMIT
    time_option: str | None = "--time"
    inlet_assets: tuple[FeedAsset, ...] = ()  # the feeds read, on the cluster they are read from
    outlet_assets: tuple[FeedAsset, ...] = ()  # the feeds written, on this cluster
    publishes: bool = False  # a success means the outlets got new data (an asset event is due)
    concurrency: int = 1  # instances of this call running at once
    timeout: Frequency | None = None  # how long a waiting or blocked instance is called again; None: the default
    lag: int = 0  # the call is for the instance this many periods before its firing's (`toolkit call --lag`)
    jars: tuple[str, ...] = ()  # on spark-submit's --jars: a JDBC driver on the driver's class path from the start

    @property
    def waits_first(self) -> bool:
        """Whether the call waits for its data before its JVM starts (`toolkit call --wait-first`): a process
        instance for its inputs, an export for its instance, a replication pull for its source instances."""
        return self.action in ("process", "export", "replication") and self.program is Program.SPARK_SUBMIT

    @property
    def wait_limit(self) -> Frequency:
        """How long after an instance's time a waiting (3) or blocked (5) call is called again."""
        return self.timeout if self.timeout is not None else default_timeout(self.cadence.frequency)


@dataclass(frozen=True)
class SchedulePlan:
    cluster: str
    calls: tuple[Call, ...]
    notifies_airflow: bool = False  # the trigger sweep posts the ledger's events to Airflow (trigger.notify)
    left_out: tuple[str, ...] = ()  # calls the cluster would need but cannot run yet, each a sentence saying why


@dataclass(frozen=True)
class FeedTransfer:
    """A per-instance action of a feed cluster's database policy (Falcon's import and export): the entrypoint that
    moves one instance between the feed and a datasource's table, and whether the instance is the call's output
    (an import fills it) or its input (an export reads it once it is published)."""

    action: str
    script: str
    policy: Callable[[FeedCluster], Import | Export | None]
    writes_feed: bool
    why: str  # after "each instance: the feed's frequency, "; {datasource} is the datasource's name
    lag: int = 0  # called this many periods after its instance (an export: once the instance has ended)
    purpose: Purpose = FOR_IMPORT  # the datasource's interface it uses, whose driver's jars go on --jars

    def call(self, feed: Feed, on: FeedCluster, cluster: Cluster, datasource: Datasource) -> Call:
        asset = (feed_asset(feed, cluster),)
        validity = on.validity
        if self.lag:  # the cadence of its firings: each its instance's time plus the lag
            zone, later = resolve_zone(feed.timezone), Frequency(feed.frequency.unit, feed.frequency.count * self.lag)
            validity = Validity(start=shift(validity.start, later, zone, +1), end=shift(validity.end, later, zone, +1))
        return Call(f"{self.action}-{feed.name}", self.action, EntityRef(Kind.FEED, feed.name),
                    instance_cadence(feed.frequency, validity, feed.timezone), Program.SPARK_SUBMIT,
                    ("--feed", feed.name, "--cluster", cluster.name),
                    "each instance: the feed's frequency, " + self.why.format(datasource=datasource.name),
                    self.script, inlet_assets=() if self.writes_feed else asset,
                    outlet_assets=asset if self.writes_feed else (), publishes=self.writes_feed, lag=self.lag,
                    jars=driver_jars(datasource, self.purpose))


# The database actions of a feed cluster, in the order their calls are listed.
TRANSFERS = (
    FeedTransfer("import", "import.py", lambda on: on.import_, writes_feed=True,
                 why="imported from datasource '{datasource}'"),
    FeedTransfer("export", "export.py", lambda on: on.export, writes_feed=False, lag=1, purpose=FOR_EXPORT,
                 why="exported to datasource '{datasource}' one period after it, once published (the call waits "
                     "for it up to a period, then exits 3)"),
)


def plan_calls(repo: ConfigRepo, cluster_name: str, retention: RetentionCalls = RetentionCalls.PER_FEED
               ) -> SchedulePlan:
    """Every call cluster `cluster_name` needs, processes first, then feeds, then the cluster-wide commands; a
    definition's value no generated line may hold is refused first (exit 2)."""
    cluster = repo.cluster(cluster_name)
    refuse_unwritable(repo, cluster.name)
    calls: list[Call] = []
    on_cluster = [p for p in repo.processes.values() if p.cluster(cluster.name) is not None]
    for process in on_cluster:
        calls.extend(_process_calls(repo, process, cluster))
    per_feed = retention is RetentionCalls.PER_FEED
    for feed in repo.feeds.values():
        if feed.cluster(cluster.name) is not None:
            calls.extend(_feed_calls(repo, feed, cluster, retention=per_feed))
    if not per_feed:
        calls.extend(_cluster_retention(repo, cluster))
    notifies, triggered = "airflow" in notify_targets(cluster, []), any(p.is_data_triggered for p in on_cluster)
    commands = []
    if triggered or notifies:
        why = ("the data-trigger sweep: a process here has trigger: data" if triggered
               else "the sweep that posts the ledger's events to Airflow (trigger.notify: airflow)")
        commands.append(Call("trigger", "trigger", None, Cadence(EVERY_MINUTE, CLOCK), Program.TOOLKIT,
                             ("trigger", "--cluster", cluster.name), why, time_option=None))
    if _has_sla(repo, cluster.name):
        commands.append(Call("sla", "sla", None, Cadence(SLA_CHECK, CLOCK), Program.TOOLKIT,
                             ("sla", "--cluster", cluster.name), "the SLA check: an entity here declares an SLA",
                             time_option="--now"))
    textfile = host_path(cluster, METRICS_TEXTFILE)
    if textfile is not None:
        commands.append(Call("metrics", "metrics", None, Cadence(METRICS, CLOCK), Program.TOOLKIT,
                             ("metrics", "--cluster", cluster.name, "--textfile", textfile),
                             f"the Prometheus metrics: the cluster sets {METRICS_TEXTFILE}", time_option=None))
    page = host_path(cluster, REPORT_OUT)
    if page is not None:
        commands.append(Call("report", "report", None, Cadence(REPORT, CLOCK), Program.TOOLKIT,
                             ("report", "--cluster", cluster.name, "--out", page),
                             f"the status page: the cluster sets {REPORT_OUT}", time_option="--now"))
    if on_cluster:
        commands.append(Call("ledger-rollup", "ledger-rollup", None, Cadence(ROLLUP, CLOCK), Program.TOOLKIT,
                             ("ledger-rollup", "--cluster", cluster.name),
                             "the ledger's roll-up of past months: processes run here", time_option="--now"))
    if commands and not reachable_without_jvm(cluster):
        names = " and ".join(f"toolkit {call.name}" for call in commands)
        return SchedulePlan(cluster.name, tuple(calls), notifies, (
            f"{names} not scheduled on cluster '{cluster.name}': the toolkit command reads a cluster's ledger on a "
            "file:// write endpoint, or an hdfs:// one through WebHDFS at a readonly endpoint such as "
            "webhdfs://namenode:9870 (docs/hdfs.md), so it would fail at every call here.",))
    return SchedulePlan(cluster.name, (*calls, *commands), notifies)


def _process_calls(repo: ConfigRepo, process: Process, cluster: Cluster) -> list[Call]:
    on = process.cluster(cluster.name)
    assert on is not None
    calls = []
    ref = EntityRef(Kind.PROCESS, process.name)
    reads = tuple(feed_asset(repo.feed(name), cluster) for name in dict.fromkeys(i.feed for i in process.inputs))
    writes = tuple(feed_asset(repo.feed(name), cluster) for name in dict.fromkeys(o.feed for o in process.outputs))
    arguments = ("--process", process.name, "--cluster", cluster.name)
    if process.frequency is not None and not process.is_data_triggered:
        cadence = instance_cadence(process.frequency, on.validity, process.timezone)
        calls.append(Call(f"process-{process.name}", "process", ref, cadence, Program.SPARK_SUBMIT, arguments,
                          "each instance: the process's frequency", "process.py",
                          inlet_assets=reads, outlet_assets=writes, publishes=True,
                          concurrency=process.parallel, timeout=process_timeout(process)))
    if process.late_process is not None:
        cadence = Cadence(process.late_process.delay, on.validity.start, process.timezone)
        calls.append(Call(f"late-check-{process.name}", "late-check", ref, cadence, Program.SPARK_SUBMIT,
                          arguments, "late data: the late-process delay", "late_check.py",
                          inlet_assets=reads, outlet_assets=writes))
    return calls


def _cluster_retention(repo: ConfigRepo, cluster: Cluster) -> list[Call]:
    """One retention call for every feed the cluster keeps: `toolkit retain --all` when none needs Spark, else the
    entrypoint (which starts Spark only when such a feed is due)."""
    kept = [(feed, on) for feed in repo.feeds.values()
            if (on := feed.cluster(cluster.name)) is not None and on.retention is not None]
    if not kept:
        return []
    finest = min((retention_frequency(feed, on)[0] for feed, on in kept), key=Frequency.approx_minutes)
    frequency = min(finest, CLUSTER_RETENTION, key=Frequency.approx_minutes)
    why = (f"retention of the cluster's {len(kept)} feed(s) in one call, each at its own cadence's latest instant "
           "not yet retained")
    assets = tuple(feed_asset(feed, cluster) for feed, _ in kept)
    arguments = ("--cluster", cluster.name, "--all")
    if all(retention_without_jvm(feed, cluster) for feed, _ in kept):
        return [Call("retention", "retention", None, Cadence(frequency, CLOCK), Program.TOOLKIT,
                     ("retain", *arguments), why, inlet_assets=assets)]
    return [Call("retention", "retention", None, Cadence(frequency, CLOCK), Program.SPARK_SUBMIT, arguments, why,
                 "retention.py", inlet_assets=assets)]


def _feed_calls(repo: ConfigRepo, feed: Feed, cluster: Cluster, *, retention: bool) -> list[Call]:
    """The feed's calls on `cluster`: its retention (unless the cluster's one call does it), replication, its
    database import and export, ingest."""
    on = feed.cluster(cluster.name)
    assert on is not None
    ref = EntityRef(Kind.FEED, feed.name)
    calls = []
    if retention and on.retention is not None:
        frequency, why = retention_frequency(feed, on)
        cadence = Cadence(frequency, on.validity.start, feed.timezone)  # no end: the entrypoint
        # decides what runs after the validity end (retention.keep-instances-beyond-validity)
        if retention_without_jvm(feed, cluster):  # `toolkit retain`: the entrypoint's call, with no JVM
            calls.append(Call(f"retention-{feed.name}", "retention", ref, cadence, Program.TOOLKIT,
                              ("retain", "--feed", feed.name, "--cluster", cluster.name), why,
                              inlet_assets=(feed_asset(feed, cluster),)))
        else:
            calls.append(Call(f"retention-{feed.name}", "retention", ref, cadence, Program.SPARK_SUBMIT,
                              ("--feed", feed.name, "--cluster", cluster.name), why,
                              "retention.py", inlet_assets=(feed_asset(feed, cluster),)))
    if on.type is FeedClusterType.TARGET:
        anchor = on.validity.start
        if on.delay is not None:
            anchor = shift(anchor, on.delay, resolve_zone(feed.timezone), 1)
        settings = replication_settings(feed)
        for source in (c for c in feed.clusters if c.type is FeedClusterType.SOURCE):
            cadence = Cadence(feed.frequency, anchor, feed.timezone, None)
            delay = f", offset by the target's delay {on.delay}" if on.delay is not None else ""
            calls.append(Call(f"replication-{feed.name}-from-{source.name}", "replication", ref, cadence,
                              Program.SPARK_SUBMIT, ("--feed", feed.name, "--source", source.name, "--target",
                                                     cluster.name),
                              f"the feed's frequency{delay}", "replication.py",
                              inlet_assets=(feed_asset(feed, repo.cluster(source.name)),),
                              outlet_assets=(feed_asset(feed, cluster),), publishes=True,
                              concurrency=settings.parallel, timeout=settings.timeout))
    for transfer in TRANSFERS:
        policy = transfer.policy(on)
        if policy is not None:
            calls.append(transfer.call(feed, on, cluster, repo.datasource(policy.datasource)))
    if feed.ingest is not None and on.type is not FeedClusterType.TARGET:
        calls.append(Call(f"ingest-{feed.name}", "ingest", ref, Cadence(INGEST_RESTART, CLOCK), Program.SPARK_SUBMIT,
                          ("--feed", feed.name, "--cluster", cluster.name, "--for", str(INGEST_SECONDS)),
                          "streaming ingest, restarted every hour to ingest for the hour", "ingest.py",
                          time_option=None, outlet_assets=(feed_asset(feed, cluster),),
                          publishes=True))
    return calls


def _has_sla(repo: ConfigRepo, cluster: str) -> bool:
    feeds = any(f.cluster(cluster) is not None and f.sla_on(cluster) is not None for f in repo.feeds.values())
    processes = any((on := p.cluster(cluster)) is not None and (on.sla or p.sla) is not None
                    for p in repo.processes.values())
    return feeds or processes
