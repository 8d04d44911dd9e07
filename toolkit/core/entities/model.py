"""The typed, immutable entity model: what every action reads instead of raw YAML.

Objects are frozen dataclasses; collections are tuples and read-only mappings, so an entity handed to an
action cannot be changed under another one. They are built only from schema-valid documents
(`toolkit.core.entities.build`), so fields hold parsed values: `Frequency`, aware UTC `datetime`s, enums.

Attribute names are the YAML (Falcon) names in snake_case:
`availabilityFlag` -> `availability_flag`, `late-arrival` -> `late_arrival`, `cut-off` -> `cut_off`,
`slaLow`/`slaHigh` -> `Sla.low`/`Sla.high`, `shouldStartIn`/`shouldEndIn` -> `should_start_in`/
`should_end_in`, `onTimeout` -> `on_timeout`, `late-process` -> `late_process`, `late-inputs` ->
`late_inputs`, `workflow-path` -> `workflow_path`, `ACL` -> `acl`, `spark-attributes` -> `spark_attributes`,
`spark-opts` -> `spark_opts`, `class` -> `class_name`, `retention-stage` -> `retention_stage`,
`lint: {ignore}` -> `lint_ignore`, `max-batch` -> `max_batch`, `import` -> `import_`, `tableName` -> `table_name`,
`mergepolicy` -> `merge_policy`, `userName` -> `user_name`, `passwordFile` -> `password_file`, `clazz` stays,
`jar` -> `jars`; a datasource's default `interfaces.credential` -> `Datasource.credential`; `trigger: data` is
read as `{on: data}`; a `table: {uri}` is kept as its URI string. A mirror keeps Falcon's property names in snake_case
(`jobClusterName` -> `job_cluster_name`, `sourceDir` -> `source_dir`), its DistCp options in `Mirror.copy` without
their `distcp`/`preserve` prefix, its type's own fields in `Mirror.spec`. Interfaces and locations are mappings keyed
by their YAML keys. `span(path)` takes the YAML path, e.g. `("late-arrival", "cut-off")`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from toolkit.core.el.frequency import Frequency
from toolkit.core.entities.document import Document, FieldPath, SourceSpan
from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.errors import UsageError
from toolkit.uris import normalize_uri

EMPTY_MAPPING: Mapping[str, str] = MappingProxyType({})


def _mapping_field() -> Any:
    """A read-only mapping field, empty by default and left out of hashing (mappings are not hashable)."""
    return field(default_factory=lambda: EMPTY_MAPPING, hash=False)


class FeedClusterType(str, Enum):
    """A source cluster produces the feed; a target receives it by replication."""

    SOURCE = "source"
    TARGET = "target"


class Order(str, Enum):
    """Which ready instance runs first; Falcon's `ONLYLAST` is read as `LAST_ONLY`."""

    FIFO = "FIFO"
    LIFO = "LIFO"
    LAST_ONLY = "LAST_ONLY"


class Policy(str, Enum):
    """Retry and late-process policies: wait `delay`, double it each time, or one last attempt."""

    PERIODIC = "periodic"
    EXP_BACKOFF = "exp-backoff"
    FINAL = "final"


class TriggerOn(str, Enum):
    """What starts a process run: the clock (the scheduler calls it at its nominal time) or published data."""

    TIME = "time"
    DATA = "data"


class Condition(str, Enum):
    """When a batch consumer is due: every input (`all`) or one input (`any`) has unconsumed events."""

    ALL = "all"
    ANY = "any"


@dataclass(frozen=True, kw_only=True)
class Validity:
    """Instances from `start` (included) to `end` (excluded), aware UTC datetimes."""

    start: datetime
    end: datetime


@dataclass(frozen=True, kw_only=True)
class Acl:
    owner: str | None = None
    group: str | None = None
    permission: str = "*"


@dataclass(frozen=True, kw_only=True)
class Notification:
    """Email addresses (`to`, split on commas) notified when an instance fails or times out (after each failed
    attempt with `level: attempt`), misses its SLA, and with `on-success` when it succeeds."""

    type: str = "email"
    level: str | None = None
    to: tuple[str, ...] = ()
    on_success: bool = False


@dataclass(frozen=True, kw_only=True)
class Entity:
    """What all entities share: name, description, tags, ACL, properties, lint settings and their source."""

    kind: ClassVar[Kind]

    name: str
    description: str | None = None
    tags: Mapping[str, str] = _mapping_field()
    acl: Acl | None = None
    properties: Mapping[str, str] = _mapping_field()
    lint_ignore: tuple[str, ...] = ()
    document: Document = field(compare=False, hash=False, repr=False)

    @property
    def ref(self) -> EntityRef:
        return EntityRef(self.kind, self.name)

    @property
    def source_file(self) -> Path:
        return self.document.file

    @property
    def folder(self) -> str:
        """The name of the folder the file is in (the linter checks it is the kind's folder)."""
        return self.source_file.parent.name

    @property
    def file_stem(self) -> str:
        """The file name without extension (the linter checks it equals the entity name)."""
        return self.source_file.stem

    def span(self, path: FieldPath = ()) -> SourceSpan:
        """Where the YAML value at `path` is, or its nearest existing parent (e.g. for a default value)."""
        return self.document.span(path)


# ---------------------------------------------------------------------------------------------- cluster


@dataclass(frozen=True, kw_only=True)
class Interface:
    type: str
    endpoint: str
    version: str | None = None


@dataclass(frozen=True, kw_only=True)
class Cluster(Entity):
    """Endpoints (`interfaces` by type) and own paths (`locations` by name) of a cluster."""

    kind: ClassVar[Kind] = Kind.CLUSTER

    colo: str | None = None
    interfaces: Mapping[str, Interface] = _mapping_field()
    locations: Mapping[str, str] = _mapping_field()

    def interface(self, type_: str) -> Interface | None:
        return self.interfaces.get(type_)

    @property
    def write_endpoint(self) -> str | None:
        """The root of the cluster's file system (hdfs://nn:8020, file:///var/data/primary), in the one spelling
        every path under it is compared in (`file:/x` and `file:///x/` are `file:///x`)."""
        write = self.interfaces.get("write")
        return None if write is None else normalize_uri(write.endpoint)

    @property
    def registry_endpoint(self) -> str | None:
        """The Hive metastore URI; None means Spark's embedded catalog."""
        registry = self.interfaces.get("registry")
        return None if registry is None else registry.endpoint

    def location(self, name: str) -> str | None:
        """The path of the `staging`, `temp`, `working` or `archive` location, if defined."""
        return self.locations.get(name)


# ------------------------------------------------------------------------------------------------- feed


@dataclass(frozen=True, kw_only=True)
class Sla:
    """A feed's availability SLA (`slaLow`, `slaHigh`), relative to the instance time."""

    low: Frequency
    high: Frequency


@dataclass(frozen=True, kw_only=True)
class LateArrival:
    cut_off: Frequency


@dataclass(frozen=True, kw_only=True)
class Retention:
    limit: Frequency
    action: str  # a name of toolkit/extensions/retention_actions/registry.py (the schema's enum)
    type: str = "instance"


@dataclass(frozen=True, kw_only=True)
class RetentionStage:
    policy: str | None = None
    frequency: Frequency | None = None
    queue: str | None = None
    priority: str | None = None
    properties: Mapping[str, str] = _mapping_field()


@dataclass(frozen=True, kw_only=True)
class Lifecycle:
    retention_stage: RetentionStage | None = None


@dataclass(frozen=True, kw_only=True)
class FeedSchema:
    provider: str
    location: str | None = None


class IngestFormat(str, Enum):
    """How a line of a landing file is a record (Hive streaming's record writers)."""

    DELIMITED = "delimited"
    JSON = "json"
    REGEX = "regex"


class LateRecords(str, Enum):
    """What becomes of a record for an instance that ingest has closed already."""

    WRITE = "write"
    DEAD_LETTERS = "dead-letters"


ARRIVAL = "arrival"  # `ingest.time`: a record's instance time is when it is ingested
DROPPED = "_"  # an entry of `ingest.fields` that is no column


@dataclass(frozen=True, kw_only=True)
class Column:
    name: str
    type: str  # a Spark SQL type: string, bigint, decimal(10,2), ...


@dataclass(frozen=True, kw_only=True)
class Ingest:
    """How records that producers drop as files into `landing` become the feed's instances (toolkit/actions/ingest/)."""

    landing: str
    format: IngestFormat
    dead_letters: str
    time: str = ARRIVAL
    delimiter: str = ","
    quote: str = '"'
    header: bool = False
    fields: tuple[str, ...] = ()
    pattern: str | None = None
    delay: Frequency | None = None
    late_records: LateRecords = LateRecords.WRITE

    @property
    def by_arrival(self) -> bool:
        return self.time == ARRIVAL


class OnFailure(str, Enum):
    """What a failing data-quality expectation does to the instance being published."""

    BLOCK = "block"  # the attempt fails and nothing is published; the retry policy applies
    WARN = "warn"  # published anyway; the failure is recorded and notified


@dataclass(frozen=True, kw_only=True)
class Quality:
    """A data-quality gate: the Great Expectations suite at `suite` (relative to the config repo's root) that an
    instance must meet before it is published (toolkit/services/quality/)."""

    suite: str
    on_failure: OnFailure = OnFailure.BLOCK


class ExtractType(str, Enum):
    """What an import reads: the whole table, or the rows past the last one imported."""

    FULL = "full"
    INCREMENTAL = "incremental"


class MergePolicy(str, Enum):
    """What an imported instance holds: the table as read (`snapshot`), or the rows read added (`append`)."""

    SNAPSHOT = "snapshot"
    APPEND = "append"


class LoadType(str, Enum):
    """What an export does to the target table: update the rows it holds (Falcon's), update them and insert the
    others (Falcon's), or replace every row by the instance's (the toolkit's own)."""

    UPDATE_ONLY = "updateonly"
    ALLOW_INSERT = "allowinsert"
    SNAPSHOT = "snapshot"


@dataclass(frozen=True, kw_only=True)
class Fields:
    """Falcon's `fields`: the columns to take (`includes`) or to leave out (`excludes`), never both."""

    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.includes and self.excludes:
            raise ValueError("fields holds either includes or excludes, not both")


@dataclass(frozen=True, kw_only=True)
class Extract:
    type: ExtractType
    merge_policy: MergePolicy  # `mergepolicy`
    delta_column: str | None = None  # `deltacolumn`, carried over from Falcon; `arguments.check-column` is used


@dataclass(frozen=True, kw_only=True)
class ImportSource:
    """`import.source`: the datasource and table an import reads."""

    name: str  # the datasource
    table_name: str  # `tableName`
    extract: Extract
    fields: Fields | None = None


@dataclass(frozen=True, kw_only=True)
class ExportTarget:
    """`export.target`: the datasource and table an export writes."""

    name: str  # the datasource
    table_name: str  # `tableName`
    load: LoadType  # `load: {type}`
    fields: Fields | None = None


@dataclass(frozen=True, kw_only=True)
class Import:
    """A feed cluster's `import`: its instances are read from a database table (Falcon's import policy).
    `arguments` are Sqoop's options without their leading `--` (`split-by`, `check-column`, ...)."""

    source: ImportSource
    arguments: Mapping[str, str] = _mapping_field()

    @property
    def datasource(self) -> str:
        return self.source.name


@dataclass(frozen=True, kw_only=True)
class Export:
    """A feed cluster's `export`: its instances are written to a database table (Falcon's export policy)."""

    target: ExportTarget
    arguments: Mapping[str, str] = _mapping_field()

    @property
    def datasource(self) -> str:
        return self.target.name


@dataclass(frozen=True, kw_only=True)
class FeedCluster:
    """A feed on one cluster. Its `locations` or `table`, when given, replace the feed's storage."""

    name: str
    validity: Validity
    type: FeedClusterType | None = None
    partition: str | None = None
    delay: Frequency | None = None
    retention: Retention | None = None
    sla: Sla | None = None
    locations: Mapping[str, str] = _mapping_field()
    table: str | None = None
    lifecycle: Lifecycle | None = None
    import_: Import | None = None  # `import`
    export: Export | None = None

    @property
    def datasources(self) -> tuple[str, ...]:
        """The datasources this cluster's import and export name, once each."""
        names = [policy.datasource for policy in (self.import_, self.export) if policy is not None]
        return tuple(dict.fromkeys(names))

    @property
    def has_own_storage(self) -> bool:
        return bool(self.locations) or self.table is not None


@dataclass(frozen=True, kw_only=True)
class Feed(Entity):
    """A dataset produced every `frequency`, stored on its clusters; see the `*_on` effective values."""

    kind: ClassVar[Kind] = Kind.FEED

    frequency: Frequency
    timezone: str = "UTC"
    partitions: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    availability_flag: str | None = None
    sla: Sla | None = None
    late_arrival: LateArrival | None = None
    clusters: tuple[FeedCluster, ...] = ()
    locations: Mapping[str, str] = _mapping_field()
    table: str | None = None
    notification: Notification | None = None
    schema: FeedSchema | None = None
    lifecycle: Lifecycle | None = None
    columns: tuple[Column, ...] = ()
    storage_format: str = "parquet"  # `format`: how a file feed's instances are stored
    ingest: Ingest | None = None
    quality: Quality | None = None  # checked by every producer of the feed, wherever it publishes

    def cluster(self, name: str) -> FeedCluster | None:
        return next((cluster for cluster in self.clusters if cluster.name == name), None)

    @property
    def cluster_names(self) -> tuple[str, ...]:
        return tuple(cluster.name for cluster in self.clusters)

    def locations_on(self, cluster: str) -> Mapping[str, str]:
        """The feed's locations on `cluster`: the cluster's own storage replaces the feed's, never merges.

        A cluster that defines `table` has no locations, even when the feed has some.
        """
        feed_cluster = self._require(cluster)
        return feed_cluster.locations if feed_cluster.has_own_storage else self.locations

    def table_on(self, cluster: str) -> str | None:
        """The catalog table URI on `cluster` (same replacement rule as `locations_on`)."""
        feed_cluster = self._require(cluster)
        return feed_cluster.table if feed_cluster.has_own_storage else self.table

    def sla_on(self, cluster: str) -> Sla | None:
        """The cluster's SLA when it has one, else the feed's."""
        feed_cluster = self._require(cluster)
        return feed_cluster.sla if feed_cluster.sla is not None else self.sla

    def _require(self, name: str) -> FeedCluster:
        feed_cluster = self.cluster(name)
        if feed_cluster is None:
            known = ", ".join(self.cluster_names) or "none"
            raise UsageError(f"Feed '{self.name}' is not on cluster '{name}': its clusters are {known}.")
        return feed_cluster


# ------------------------------------------------------------------------------------------- datasource


class CredentialType(str, Enum):
    PASSWORD_FILE = "password-file"
    PASSWORD_TEXT = "password-text"
    PASSWORD_ALIAS = "password-alias"


@dataclass(frozen=True, kw_only=True)
class PasswordAlias:
    alias: str
    provider_path: str  # `providerPath`


@dataclass(frozen=True, kw_only=True)
class Credential:
    """Who connects and where the password is. A `password-text` password is kept out of `repr` (and so out of
    every message that shows the record): nothing the toolkit prints holds it."""

    type: CredentialType
    user_name: str  # `userName`
    password_file: str | None = None  # `passwordFile`
    password_text: str | None = field(default=None, repr=False)  # `passwordText`
    password_alias: PasswordAlias | None = None  # `passwordAlias`

    def __post_init__(self) -> None:
        given = {
            CredentialType.PASSWORD_FILE: self.password_file is not None,
            CredentialType.PASSWORD_TEXT: self.password_text is not None,
            CredentialType.PASSWORD_ALIAS: self.password_alias is not None,
        }
        if not given[self.type] or sum(given.values()) != 1:
            raise ValueError(f"a {self.type.value} credential holds exactly its own password field")


@dataclass(frozen=True, kw_only=True)
class Driver:
    clazz: str  # the JDBC driver class
    jars: tuple[str, ...]  # `jar`

    def __post_init__(self) -> None:
        if not self.jars:
            raise ValueError(f"driver {self.clazz} names no jar")


@dataclass(frozen=True, kw_only=True)
class DatasourceInterface:
    """A JDBC endpoint: `readonly` (imports read it) or `write` (exports write it)."""

    type: str
    endpoint: str  # the JDBC URL
    credential: Credential | None = None
    driver: Driver | None = None
    properties: Mapping[str, str] = _mapping_field()


class DatasourceType(str, Enum):
    POSTGRES = "postgres"
    MYSQL = "mysql"
    MARIADB = "mariadb"
    ORACLE = "oracle"
    HSQL = "hsql"
    DB2 = "db2"
    NETEZZA = "netezza"
    TERADATA = "teradata"
    GENERIC = "generic"


@dataclass(frozen=True, kw_only=True)
class Datasource(Entity):
    """A relational database (Falcon's datasource): JDBC endpoints by type, their credentials and driver.

    Imports read the `readonly` interface (else `write`); exports write the `write` one. An interface without its
    own credential or driver has the datasource's (`interfaces.credential`, `driver`): see `credential_of`."""

    kind: ClassVar[Kind] = Kind.DATASOURCE

    type: DatasourceType
    colo: str | None = None
    interfaces: Mapping[str, DatasourceInterface] = _mapping_field()
    credential: Credential | None = None  # `interfaces.credential`, the default
    driver: Driver

    def __post_init__(self) -> None:
        if not self.interfaces:
            raise ValueError(f"datasource {self.name} has no interface")

    @property
    def holds_password_text(self) -> bool:
        """True when a credential is a `password-text`: the password is in the file, so no copy of the document
        may be kept anywhere else (the parse cache does not keep it)."""
        credentials = [self.credential, *(interface.credential for interface in self.interfaces.values())]
        return any(credential is not None and credential.type is CredentialType.PASSWORD_TEXT
                   for credential in credentials)

    def credential_of(self, interface: DatasourceInterface) -> Credential | None:
        return interface.credential if interface.credential is not None else self.credential

    def driver_of(self, interface: DatasourceInterface) -> Driver:
        return interface.driver if interface.driver is not None else self.driver


# ---------------------------------------------------------------------------------------------- process


@dataclass(frozen=True, kw_only=True)
class ProcessSla:
    should_start_in: Frequency | None = None
    should_end_in: Frequency | None = None


@dataclass(frozen=True, kw_only=True)
class ProcessCluster:
    name: str
    validity: Validity
    sla: ProcessSla | None = None
    version: int = 0


@dataclass(frozen=True, kw_only=True)
class FeedUse:
    """What an input and an output share: their name in the process and the feed they read or write."""

    name: str
    feed: str


@dataclass(frozen=True, kw_only=True)
class Input(FeedUse):
    """A window of `feed` instances from EL `start` to EL `end` (both included).

    A batch consumer's input has no window (`start` and `end` are None): it reads the feed's unconsumed
    events; the schema allows no window on any other process's input.
    """

    start: str | None = None
    end: str | None = None
    partition: str | None = None
    optional: bool = False

    @property
    def window(self) -> tuple[str, str] | None:
        """(start, end) of a windowed input; None for a batch consumer's input."""
        return None if self.start is None or self.end is None else (self.start, self.end)

    def require_window(self) -> tuple[str, str]:
        """(start, end), or UsageError for a batch consumer's input, which is read by batch, not by window."""
        if self.start is None or self.end is None:
            raise UsageError(f"Input '{self.name}' (feed '{self.feed}') has no window: it belongs to a batch "
                             "consumer, whose runs read batches of published instances, not a time window.")
        return self.start, self.end


@dataclass(frozen=True, kw_only=True)
class Output(FeedUse):
    """The `feed` instance (an EL expression) the workflow writes; None for a batch consumer's output, whose
    instance is the newest consumed input instance's time snapped onto the output feed's grid."""

    instance: str | None = None
    quality: Quality | None = None  # this output's own gate, checked after the feed's

    def require_instance(self) -> str:
        """The instance expression, or UsageError for a batch consumer's output (it has none)."""
        if self.instance is None:
            raise UsageError(f"Output '{self.name}' (feed '{self.feed}') has no instance expression: it belongs "
                             "to a batch consumer, whose output instance comes from the batch it consumed.")
        return self.instance


@dataclass(frozen=True, kw_only=True)
class Workflow:
    engine: str  # a name of toolkit/extensions/workflow_engines/registry.py (the schema's enum)
    path: str
    name: str | None = None
    version: str = "1.0"
    lib: str | None = None


@dataclass(frozen=True, kw_only=True)
class SparkAttributes:
    master: str | None = None
    mode: str | None = None
    name: str | None = None
    class_name: str | None = None
    jar: str | None = None
    spark_opts: str | None = None
    args: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Retry:
    policy: Policy
    delay: Frequency
    attempts: int
    on_timeout: bool = False


@dataclass(frozen=True, kw_only=True)
class LateInput:
    input: str
    workflow_path: str


@dataclass(frozen=True, kw_only=True)
class LateProcess:
    policy: Policy
    delay: Frequency
    late_inputs: tuple[LateInput, ...]


@dataclass(frozen=True, kw_only=True)
class Trigger:
    """What starts the process (`trigger` in YAML; default: the clock, as in Falcon).

    `on: data` with a frequency: instance T starts once every required input instance of its windows is
    published. `on: data` without a frequency (a batch consumer): a run consumes a batch of unconsumed events
    of its inputs, when every input (`condition: all`) or one (`any`) has some; `max_batch` caps the events of
    one run, `cut` (an EL instant) takes only instances up to it, `ordered` runs one batch at a time, oldest
    first. The options of batch consumers mean nothing elsewhere (lint PR023).
    """

    on: TriggerOn = TriggerOn.TIME
    condition: Condition = Condition.ALL
    max_batch: int | None = None
    cut: str | None = None
    ordered: bool = False


@dataclass(frozen=True, kw_only=True)
class Process(Entity):
    """A workflow run every `frequency` on its clusters, reading `inputs` and writing `outputs`.

    Without a frequency the process is a batch consumer (its `trigger` is on data, which the schema
    enforces): it has no instances on a time grid, and its inputs and outputs name only their feed.
    """

    kind: ClassVar[Kind] = Kind.PROCESS

    frequency: Frequency | None
    workflow: Workflow
    trigger: Trigger = field(default_factory=Trigger)
    clusters: tuple[ProcessCluster, ...] = ()
    version: int = 0
    pipelines: tuple[str, ...] = ()
    parallel: int = 1
    order: Order = Order.FIFO
    timeout: Frequency | None = None
    sla: ProcessSla | None = None
    timezone: str = "UTC"
    inputs: tuple[Input, ...] = ()
    outputs: tuple[Output, ...] = ()
    spark_attributes: SparkAttributes | None = None
    retry: Retry | None = None
    late_process: LateProcess | None = None
    notification: Notification | None = None

    def cluster(self, name: str) -> ProcessCluster | None:
        return next((cluster for cluster in self.clusters if cluster.name == name), None)

    def input(self, name: str) -> Input | None:
        return next((item for item in self.inputs if item.name == name), None)

    def output(self, name: str) -> Output | None:
        return next((item for item in self.outputs if item.name == name), None)

    @property
    def is_data_triggered(self) -> bool:
        """Started by published data (`trigger: data`), not by the scheduler's clock."""
        return self.trigger.on is TriggerOn.DATA

    @property
    def is_batch_consumer(self) -> bool:
        """A process without frequency: each run consumes a batch of unconsumed input events."""
        return self.frequency is None

    @property
    def is_instance_consumer(self) -> bool:
        """A process with a frequency and `trigger: data`: instance T starts when its input windows are published."""
        return self.is_data_triggered and self.frequency is not None

    def require_frequency(self) -> Frequency:
        """The frequency, or UsageError (exit 2) saying a batch consumer has no time grid."""
        if self.frequency is None:
            raise UsageError(
                f"Process '{self.name}' has no frequency: it is a batch consumer, which runs on batches of "
                "published input events, not at nominal times: `toolkit trigger` starts its runs."
            )
        return self.frequency


# ---------------------------------------------------------------------------------------------- mirror


class MirrorType(str, Enum):
    """What a mirror copies: Falcon's hdfs-mirroring, hdfs-snapshot-mirroring and hive-mirroring extensions."""

    HDFS = "hdfs"
    HDFS_SNAPSHOT = "hdfs-snapshot"
    HIVE = "hive"


@dataclass(frozen=True, kw_only=True)
class Preserve:
    """What of a source file its copy keeps (DistCp's `-p` letters; Falcon's `preserve*` properties)."""

    block_size: bool = False
    replication_number: bool = False
    permission: bool = False
    user: bool = False
    group: bool = False
    checksum_type: bool = False
    acl: bool = False
    xattr: bool = False
    times: bool = False


@dataclass(frozen=True, kw_only=True)
class CopyOptions:
    """How files are compared and copied (Falcon's DistCp options): at most `max_maps` copies at once, each read at
    `map_bandwidth` MB/s at most (None: unlimited)."""

    max_maps: int | None = None
    map_bandwidth: int | None = None
    overwrite: bool = False
    ignore_errors: bool = False
    skip_checksum: bool = False
    remove_deleted_files: bool = False
    tde_encryption_enabled: bool = False
    preserve: Preserve = field(default_factory=Preserve)


@dataclass(frozen=True, kw_only=True)
class HdfsMirrorSpec:
    """Folders copied incrementally, each into its own name under `target_dir`."""

    source_dir: tuple[str, ...]
    target_dir: str


@dataclass(frozen=True, kw_only=True)
class SnapshotRetention:
    """Snapshots older than `age_limit` are deleted (`policy`), except the newest `number`."""

    age_limit: Frequency
    number: int
    policy: str = "delete"


@dataclass(frozen=True, kw_only=True)
class SnapshotMirrorSpec:
    """A snapshottable folder copied by the diff of its snapshots; each side's snapshots kept by `*_retention`."""

    source_snapshot_dir: str
    target_snapshot_dir: str
    source_retention: SnapshotRetention
    target_retention: SnapshotRetention


ALL_TABLES = "*"


@dataclass(frozen=True, kw_only=True)
class HiveMirrorSpec:
    """Databases (and their `source_tables`, or every table) replicated between the clusters' metastores."""

    source_databases: tuple[str, ...]
    source_tables: tuple[str, ...] | None = None  # None: every table (`*`)
    source_staging_path: str | None = None
    target_staging_path: str | None = None
    max_events: int | None = None
    replication_max_maps: int | None = None
    remove_dropped_partitions: bool = False


MirrorSpec = HdfsMirrorSpec | SnapshotMirrorSpec | HiveMirrorSpec
_SPEC_TYPES: Mapping[MirrorType, type[Any]] = MappingProxyType({
    MirrorType.HDFS: HdfsMirrorSpec, MirrorType.HDFS_SNAPSHOT: SnapshotMirrorSpec, MirrorType.HIVE: HiveMirrorSpec})


@dataclass(frozen=True, kw_only=True)
class Mirror(Entity):
    """A copy from `source_cluster` to `target_cluster` at every nominal time of `job_frequency` within `validity`,
    run by `job_cluster_name`'s scheduler; `spec` holds what its `type` copies."""

    kind: ClassVar[Kind] = Kind.MIRROR

    type: MirrorType
    job_cluster_name: str
    job_frequency: Frequency
    validity: Validity
    source_cluster: str
    target_cluster: str
    spec: MirrorSpec
    job_timezone: str = "UTC"
    retry: Retry | None = None
    notification: Notification | None = None
    copy: CopyOptions = field(default_factory=CopyOptions)

    def __post_init__(self) -> None:
        if not isinstance(self.spec, _SPEC_TYPES[self.type]):
            raise ValueError(f"Mirror '{self.name}' of type {self.type.value} cannot hold a {type(self.spec).__name__}")

    @property
    def cluster_names(self) -> tuple[str, ...]:
        """The clusters it names: where it runs, the source and the target (each once)."""
        return tuple(dict.fromkeys((self.job_cluster_name, self.source_cluster, self.target_cluster)))


def quality_gates(feed: Feed, output: Output | None = None) -> tuple[Quality, ...]:
    """The gates an instance of `feed` passes before it is published: the feed's, then the producing process
    `output`'s own. A suite named by both is checked once, blocking when either says block: an output cannot
    weaken the feed's gate, which holds for every producer."""
    gates = tuple(gate for gate in (feed.quality, output.quality if output is not None else None) if gate is not None)
    if len(gates) < 2 or gates[0].suite != gates[1].suite:
        return gates
    blocks = OnFailure.BLOCK in (gates[0].on_failure, gates[1].on_failure)
    return (Quality(suite=gates[0].suite, on_failure=OnFailure.BLOCK if blocks else OnFailure.WARN),)
