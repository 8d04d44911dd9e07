"""Build the typed model from a schema-valid document (see `validation.validate_document`).

The schema has already checked every type, pattern and required field, so this module only converts:
frequencies, UTC times, enums, defaults, lists to tuples and maps to read-only mappings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from toolkit.core.el.frequency import Frequency
from toolkit.core.el.timestamps import parse_timestamp
from toolkit.core.entities.document import Document
from toolkit.core.entities.kinds import Kind
from toolkit.core.entities.model import (
    ALL_TABLES,
    ARRIVAL,
    EMPTY_MAPPING,
    Acl,
    Cluster,
    Column,
    Condition,
    CopyOptions,
    Credential,
    CredentialType,
    Datasource,
    DatasourceInterface,
    DatasourceType,
    Driver,
    Entity,
    Export,
    ExportTarget,
    Extract,
    ExtractType,
    Feed,
    FeedCluster,
    FeedClusterType,
    FeedSchema,
    Fields,
    HdfsMirrorSpec,
    HiveMirrorSpec,
    Import,
    ImportSource,
    Ingest,
    IngestFormat,
    Input,
    Interface,
    LateArrival,
    LateInput,
    LateProcess,
    LateRecords,
    Lifecycle,
    LoadType,
    MergePolicy,
    Mirror,
    MirrorSpec,
    MirrorType,
    Notification,
    OnFailure,
    Order,
    Output,
    PasswordAlias,
    Policy,
    Preserve,
    Process,
    ProcessCluster,
    ProcessSla,
    Quality,
    Retention,
    RetentionStage,
    Retry,
    Sla,
    SnapshotMirrorSpec,
    SnapshotRetention,
    SparkAttributes,
    Trigger,
    TriggerOn,
    Validity,
    Workflow,
)

Raw = Mapping[str, Any]

# Most entities repeat the same few frequencies and validity times: each text parsed once (both are immutable).
_parsed_frequency = lru_cache(maxsize=1024)(Frequency.parse)
_parsed_timestamp = lru_cache(maxsize=1024)(parse_timestamp)


def build_entity(doc: Document) -> Entity:
    """The Cluster, Feed, Process, Datasource or Mirror that a schema-valid document describes."""
    builders = {Kind.CLUSTER: _cluster, Kind.FEED: _feed, Kind.PROCESS: _process, Kind.DATASOURCE: _datasource,
                Kind.MIRROR: _mirror}
    return builders[Kind(doc.data["kind"])](doc)


def _common(doc: Document) -> dict[str, Any]:
    data = doc.data
    return {
        "name": data["name"],
        "description": data.get("description"),
        "tags": _texts(data.get("tags")),
        "acl": _acl(data.get("ACL")),
        "properties": _texts(data.get("properties")),
        "lint_ignore": tuple(data.get("lint", {}).get("ignore", ())),
        "document": doc,
    }


def _cluster(doc: Document) -> Cluster:
    data = doc.data
    interfaces = {
        type_: Interface(type=type_, endpoint=raw["endpoint"], version=raw.get("version"))
        for type_, raw in data["interfaces"].items()
    }
    return Cluster(
        **_common(doc),
        colo=data.get("colo"),
        interfaces=MappingProxyType(interfaces),
        locations=_texts(data["locations"]),
    )


def _feed(doc: Document) -> Feed:
    data = doc.data
    late = data.get("late-arrival")
    schema = data.get("schema")
    return Feed(
        **_common(doc),
        frequency=_parsed_frequency(data["frequency"]),
        timezone=data.get("timezone", "UTC"),
        partitions=tuple(data.get("partitions", ())),
        groups=tuple(data.get("groups", ())),
        availability_flag=data.get("availabilityFlag"),
        sla=_sla(data.get("sla")),
        late_arrival=None if late is None else LateArrival(cut_off=_parsed_frequency(late["cut-off"])),
        clusters=tuple(_feed_cluster(raw) for raw in data["clusters"]),
        locations=_texts(data.get("locations")),
        table=_table(data.get("table")),
        notification=_notification(data.get("notification")),
        schema=None if schema is None else FeedSchema(location=schema.get("location"), provider=schema["provider"]),
        lifecycle=_lifecycle(data.get("lifecycle")),
        columns=tuple(Column(name=c["name"], type=c["type"]) for c in data.get("columns", ())),
        storage_format=data.get("format", "parquet"),
        ingest=_ingest(data.get("ingest")),
        quality=_quality(data.get("quality")),
    )


def _quality(raw: Raw | None) -> Quality | None:
    return None if raw is None else Quality(suite=raw["suite"], on_failure=OnFailure(raw.get("on-failure", "block")))


def _ingest(raw: Raw | None) -> Ingest | None:
    if raw is None:
        return None
    return Ingest(
        landing=raw["landing"],
        format=IngestFormat(raw["format"]),
        dead_letters=raw["dead-letters"],
        time=raw.get("time", ARRIVAL),
        delimiter=raw.get("delimiter", ","),
        quote=raw.get("quote", '"'),
        header=bool(raw.get("header", False)),
        fields=tuple(raw.get("fields", ())),
        pattern=raw.get("pattern"),
        delay=_frequency(raw.get("delay")),
        late_records=LateRecords(raw.get("late-records", LateRecords.WRITE.value)),
    )


def _feed_cluster(raw: Raw) -> FeedCluster:
    retention = raw.get("retention")
    return FeedCluster(
        name=raw["name"],
        validity=_validity(raw["validity"]),
        type=None if "type" not in raw else FeedClusterType(raw["type"]),
        partition=raw.get("partition"),
        delay=_frequency(raw.get("delay")),
        retention=None
        if retention is None
        else Retention(
            limit=_parsed_frequency(retention["limit"]),
            action=retention["action"],
            type=retention.get("type", "instance"),
        ),
        sla=_sla(raw.get("sla")),
        locations=_texts(raw.get("locations")),
        table=_table(raw.get("table")),
        lifecycle=_lifecycle(raw.get("lifecycle")),
        import_=_import(raw.get("import")),
        export=_export(raw.get("export")),
    )


def _import(raw: Raw | None) -> Import | None:
    if raw is None:
        return None
    source, extract = raw["source"], raw["source"]["extract"]
    return Import(
        source=ImportSource(
            name=source["name"],
            table_name=source["tableName"],
            extract=Extract(type=ExtractType(extract["type"]), merge_policy=MergePolicy(extract["mergepolicy"]),
                            delta_column=extract.get("deltacolumn")),
            fields=_fields(source.get("fields")),
        ),
        arguments=_texts(raw.get("arguments")),
    )


def _export(raw: Raw | None) -> Export | None:
    if raw is None:
        return None
    target = raw["target"]
    return Export(
        target=ExportTarget(name=target["name"], table_name=target["tableName"], load=LoadType(target["load"]["type"]),
                            fields=_fields(target.get("fields"))),
        arguments=_texts(raw.get("arguments")),
    )


def _fields(raw: Raw | None) -> Fields | None:
    if raw is None:
        return None
    return Fields(includes=tuple(raw.get("includes", ())), excludes=tuple(raw.get("excludes", ())))


def _datasource(doc: Document) -> Datasource:
    data = doc.data
    interfaces = {
        type_: DatasourceInterface(type=type_, endpoint=raw["endpoint"], credential=_credential(raw.get("credential")),
                                   driver=_driver(raw.get("driver")), properties=_texts(raw.get("properties")))
        for type_, raw in data["interfaces"].items()
        if type_ != "credential"
    }
    return Datasource(
        **_common(doc),
        type=DatasourceType(data["type"]),
        colo=data.get("colo"),
        interfaces=MappingProxyType(interfaces),
        credential=_credential(data["interfaces"].get("credential")),
        driver=Driver(clazz=data["driver"]["clazz"], jars=tuple(data["driver"]["jar"])),
    )


def _credential(raw: Raw | None) -> Credential | None:
    if raw is None:
        return None
    alias = raw.get("passwordAlias")
    return Credential(
        type=CredentialType(raw["type"]),
        user_name=raw["userName"],
        password_file=raw.get("passwordFile"),
        password_text=raw.get("passwordText"),
        password_alias=None if alias is None
        else PasswordAlias(alias=alias["alias"], provider_path=alias["providerPath"]),
    )


def _driver(raw: Raw | None) -> Driver | None:
    return None if raw is None else Driver(clazz=raw["clazz"], jars=tuple(raw["jar"]))


def _process(doc: Document) -> Process:
    data = doc.data
    workflow = data["workflow"]
    return Process(
        **_common(doc),
        frequency=_frequency(data.get("frequency")),
        trigger=_trigger(data.get("trigger")),
        workflow=Workflow(
            engine=workflow["engine"],
            path=workflow["path"],
            name=workflow.get("name"),
            version=workflow.get("version", "1.0"),
            lib=workflow.get("lib"),
        ),
        clusters=tuple(
            ProcessCluster(
                name=raw["name"],
                validity=_validity(raw["validity"]),
                sla=_process_sla(raw.get("sla")),
                version=raw.get("version", 0),
            )
            for raw in data["clusters"]
        ),
        version=data.get("version", 0),
        pipelines=tuple(data.get("pipelines", ())),
        parallel=data.get("parallel", 1),
        order=Order.LAST_ONLY if data.get("order") == "ONLYLAST" else Order(data.get("order", "FIFO")),
        timeout=_frequency(data.get("timeout")),
        sla=_process_sla(data.get("sla")),
        timezone=data.get("timezone", "UTC"),
        inputs=tuple(
            Input(
                name=raw["name"],
                feed=raw["feed"],
                start=raw.get("start"),
                end=raw.get("end"),
                partition=raw.get("partition"),
                optional=raw.get("optional", False),
            )
            for raw in data.get("inputs", ())
        ),
        outputs=tuple(
            Output(name=raw["name"], feed=raw["feed"], instance=raw.get("instance"),
                   quality=_quality(raw.get("quality")))
            for raw in data.get("outputs", ())
        ),
        spark_attributes=_spark_attributes(data.get("spark-attributes")),
        retry=_retry(data.get("retry")),
        late_process=_late_process(data.get("late-process")),
        notification=_notification(data.get("notification")),
    )


def _mirror(doc: Document) -> Mirror:
    data = doc.data
    type_ = MirrorType(data["type"])
    return Mirror(
        **_common(doc),
        type=type_,
        job_cluster_name=data["jobClusterName"],
        job_frequency=_parsed_frequency(data["jobFrequency"]),
        job_timezone=data.get("jobTimezone", "UTC"),
        validity=_validity(data["validity"]),
        retry=_retry(data.get("retry")),
        notification=_notification(data.get("notification")),
        source_cluster=data["sourceCluster"],
        target_cluster=data["targetCluster"],
        spec=_MIRROR_SPECS[type_](data),
        copy=CopyOptions(
            max_maps=data.get("distcpMaxMaps"),
            map_bandwidth=data.get("distcpMapBandwidth"),
            overwrite=data.get("overwrite", False),
            ignore_errors=data.get("ignoreErrors", False),
            skip_checksum=data.get("skipChecksum", False),
            remove_deleted_files=data.get("removeDeletedFiles", False),
            tde_encryption_enabled=data.get("tdeEncryptionEnabled", False),
            preserve=Preserve(
                block_size=data.get("preserveBlockSize", False),
                replication_number=data.get("preserveReplicationNumber", False),
                permission=data.get("preservePermission", False),
                user=data.get("preserveUser", False),
                group=data.get("preserveGroup", False),
                checksum_type=data.get("preserveChecksumType", False),
                acl=data.get("preserveAcl", False),
                xattr=data.get("preserveXattr", False),
                times=data.get("preserveTimes", False),
            ),
        ),
    )


def _hdfs_spec(data: Raw) -> HdfsMirrorSpec:
    return HdfsMirrorSpec(source_dir=tuple(data["sourceDir"]), target_dir=data["targetDir"])


def _snapshot_spec(data: Raw) -> SnapshotMirrorSpec:
    def retention(side: str) -> SnapshotRetention:
        return SnapshotRetention(age_limit=_parsed_frequency(data[f"{side}SnapshotRetentionAgeLimit"]),
                                 number=data[f"{side}SnapshotRetentionNumber"],
                                 policy=data.get(f"{side}SnapshotRetentionPolicy", "delete"))

    return SnapshotMirrorSpec(source_snapshot_dir=data["sourceSnapshotDir"],
                              target_snapshot_dir=data["targetSnapshotDir"],
                              source_retention=retention("source"), target_retention=retention("target"))


def _hive_spec(data: Raw) -> HiveMirrorSpec:
    tables = data.get("sourceTables", ALL_TABLES)
    return HiveMirrorSpec(
        source_databases=tuple(data["sourceDatabases"]),
        source_tables=None if tables == ALL_TABLES else tuple(tables),
        source_staging_path=data.get("sourceStagingPath"),
        target_staging_path=data.get("targetStagingPath"),
        max_events=data.get("maxEvents"),
        replication_max_maps=data.get("replicationMaxMaps"),
        remove_dropped_partitions=data.get("removeDroppedPartitions", False),
    )


_MIRROR_SPECS: Mapping[MirrorType, Callable[[Raw], MirrorSpec]] = {
    MirrorType.HDFS: _hdfs_spec, MirrorType.HDFS_SNAPSHOT: _snapshot_spec, MirrorType.HIVE: _hive_spec}


def _retry(raw: Raw | None) -> Retry | None:
    if raw is None:
        return None
    return Retry(policy=Policy(raw["policy"]), delay=_parsed_frequency(raw["delay"]), attempts=raw["attempts"],
                 on_timeout=raw.get("onTimeout", False))


def _trigger(raw: str | Raw | None) -> Trigger:
    """`trigger: data` is short for `{on: data}`; no trigger is the clock."""
    if raw is None:
        return Trigger()
    if isinstance(raw, str):
        return Trigger(on=TriggerOn(raw))
    return Trigger(
        on=TriggerOn(raw.get("on", "time")),
        condition=Condition(raw.get("condition", "all")),
        max_batch=raw.get("max-batch"),
        cut=raw.get("cut"),
        ordered=raw.get("ordered", False),
    )


def _late_process(raw: Raw | None) -> LateProcess | None:
    if raw is None:
        return None
    return LateProcess(
        policy=Policy(raw["policy"]),
        delay=_parsed_frequency(raw["delay"]),
        late_inputs=tuple(
            LateInput(input=item["input"], workflow_path=item["workflow-path"]) for item in raw["late-inputs"]
        ),
    )


def _spark_attributes(raw: Raw | None) -> SparkAttributes | None:
    if raw is None:
        return None
    return SparkAttributes(
        master=raw.get("master"),
        mode=raw.get("mode"),
        name=raw.get("name"),
        class_name=raw.get("class"),
        jar=raw.get("jar"),
        spark_opts=raw.get("spark-opts"),
        args=tuple(raw.get("args", ())),
    )


def _validity(raw: Raw) -> Validity:
    return Validity(start=_parsed_timestamp(raw["start"]), end=_parsed_timestamp(raw["end"]))


def _sla(raw: Raw | None) -> Sla | None:
    if raw is None:
        return None
    return Sla(low=_parsed_frequency(raw["slaLow"]), high=_parsed_frequency(raw["slaHigh"]))


def _process_sla(raw: Raw | None) -> ProcessSla | None:
    if raw is None:
        return None
    return ProcessSla(
        should_start_in=_frequency(raw.get("shouldStartIn")), should_end_in=_frequency(raw.get("shouldEndIn"))
    )


def _lifecycle(raw: Raw | None) -> Lifecycle | None:
    if raw is None:
        return None
    stage = raw.get("retention-stage")
    return Lifecycle(
        retention_stage=None
        if stage is None
        else RetentionStage(
            policy=stage.get("policy"),
            frequency=_frequency(stage.get("frequency")),
            queue=stage.get("queue"),
            priority=stage.get("priority"),
            properties=_texts(stage.get("properties")),
        )
    )


def _notification(raw: Raw | None) -> Notification | None:
    if raw is None:
        return None
    recipients = tuple(address.strip() for address in raw["to"].split(",") if address.strip())
    return Notification(type=raw.get("type", "email"), level=raw.get("level"), to=recipients,
                        on_success=bool(raw.get("on-success", False)))


def _acl(raw: Raw | None) -> Acl | None:
    if raw is None:
        return None
    return Acl(owner=raw.get("owner"), group=raw.get("group"), permission=raw.get("permission", "*"))


def _table(raw: Raw | None) -> str | None:
    return None if raw is None else raw["uri"]


def _frequency(text: str | None) -> Frequency | None:
    return None if text is None else _parsed_frequency(text)


def _texts(raw: Raw | None) -> Mapping[str, str]:
    """Scalars as text, as Java properties would hold them (`true`, not `True`)."""
    if not raw:
        return EMPTY_MAPPING
    return MappingProxyType({key: _text(value) for key, value in raw.items()})


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
