"""The mirror entity (Falcon's mirroring extensions): schema and its messages, typed model, repo and dependencies."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.el.frequency import Frequency
from toolkit.core.entities import ConfigRepo, EntityRef, Kind, parse_entity
from toolkit.core.entities.model import (
    CopyOptions,
    HdfsMirrorSpec,
    HiveMirrorSpec,
    Mirror,
    MirrorType,
    Preserve,
    SnapshotMirrorSpec,
    SnapshotRetention,
)

FILE = Path("mirrors/sales-dr.yaml")
HDFS = """kind: mirror
name: sales-dr
type: hdfs
jobClusterName: backup
jobFrequency: hours(6)
validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
retry: {policy: periodic, delay: minutes(10), attempts: 2}
notification: {to: "dr@example.com"}
sourceCluster: primary
targetCluster: backup
sourceDir: [/data/sales, /data/orders]
targetDir: /mirrors/sales
distcpMaxMaps: 4
distcpMapBandwidth: 50
removeDeletedFiles: true
preserveTimes: true
"""
SNAPSHOT = """kind: mirror
name: sales-dr
type: hdfs-snapshot
jobClusterName: backup
jobFrequency: days(1)
jobTimezone: Europe/Paris
validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
sourceCluster: primary
targetCluster: backup
sourceSnapshotDir: /data/sales
targetSnapshotDir: /mirrors/sales
sourceSnapshotRetentionAgeLimit: days(7)
sourceSnapshotRetentionNumber: 3
targetSnapshotRetentionAgeLimit: months(1)
targetSnapshotRetentionNumber: 10
"""
HIVE = """kind: mirror
name: sales-dr
type: hive
jobClusterName: backup
jobFrequency: hours(1)
validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
sourceCluster: primary
targetCluster: backup
sourceDatabases: [sales]
"""


def _mirror(text: str) -> Mirror:
    entity, problems = parse_entity(text, FILE)
    assert problems == []
    assert isinstance(entity, Mirror)
    return entity


def _messages(text: str) -> list[str]:
    entity, problems = parse_entity(text, FILE)
    assert entity is None
    return [problem.message for problem in problems]


def test_an_hdfs_mirror_is_built_with_falcons_properties() -> None:
    mirror = _mirror(HDFS)
    assert mirror.ref == EntityRef(Kind.MIRROR, "sales-dr")
    assert (mirror.type, mirror.job_cluster_name, mirror.source_cluster, mirror.target_cluster) == (
        MirrorType.HDFS, "backup", "primary", "backup")
    assert mirror.job_frequency == Frequency.parse("hours(6)") and mirror.job_timezone == "UTC"
    assert mirror.validity.start == datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert mirror.retry is not None and mirror.retry.attempts == 2
    assert mirror.notification is not None and mirror.notification.to == ("dr@example.com",)
    assert mirror.spec == HdfsMirrorSpec(source_dir=("/data/sales", "/data/orders"), target_dir="/mirrors/sales")
    assert mirror.copy == CopyOptions(max_maps=4, map_bandwidth=50, remove_deleted_files=True,
                                      preserve=Preserve(times=True))
    assert mirror.cluster_names == ("backup", "primary")


def test_a_snapshot_mirror_keeps_each_sides_retention() -> None:
    mirror = _mirror(SNAPSHOT)
    assert mirror.job_timezone == "Europe/Paris"
    assert mirror.spec == SnapshotMirrorSpec(
        source_snapshot_dir="/data/sales", target_snapshot_dir="/mirrors/sales",
        source_retention=SnapshotRetention(age_limit=Frequency.parse("days(7)"), number=3),
        target_retention=SnapshotRetention(age_limit=Frequency.parse("months(1)"), number=10))
    assert mirror.copy == CopyOptions()


def test_a_hive_mirror_takes_every_table_unless_it_lists_some() -> None:
    assert _mirror(HIVE).spec == HiveMirrorSpec(source_databases=("sales",))
    listed = _mirror(HIVE + "sourceTables: [orders, customers]\nremoveDroppedPartitions: true\n")
    assert isinstance(listed.spec, HiveMirrorSpec)
    assert listed.spec.source_tables == ("orders", "customers") and listed.spec.remove_dropped_partitions
    assert isinstance(_mirror(HIVE + "sourceTables: '*'\n").spec, HiveMirrorSpec)


def test_a_record_of_one_type_cannot_hold_another_types_spec() -> None:
    mirror = _mirror(HDFS)
    with pytest.raises(ValueError, match="of type hive cannot hold a HdfsMirrorSpec"):
        Mirror(name="x", type=MirrorType.HIVE, job_cluster_name="b", job_frequency=mirror.job_frequency,
               validity=mirror.validity, source_cluster="a", target_cluster="b", spec=mirror.spec,
               document=mirror.document)


def test_a_field_of_another_type_names_the_types_it_belongs_to() -> None:
    assert _messages(HIVE + "targetDir: /mirrors/sales\n") == [
        "Mirror 'sales-dr': targetDir is a field of hdfs mirrors, and this mirror's type is 'hive': remove it, or "
        "change type."]
    assert _messages(HIVE + "removeDeletedFiles: true\n") == [
        "Mirror 'sales-dr': removeDeletedFiles is a field of hdfs and hdfs-snapshot mirrors, and this mirror's type "
        "is 'hive': remove it, or change type."]


def test_a_missing_field_of_the_type_is_named() -> None:
    assert _messages(HDFS.replace("targetDir: /mirrors/sales\n", "")) == [
        "Mirror 'sales-dr': the required field targetDir is missing; add it."]


@pytest.mark.parametrize(("change", "message"), [
    (("sourceDatabases: [sales]", "sourceDatabases: [sales]\nsourceTables: all"),
     "sourceTables is 'all'; give * (every table of sourceDatabases) or a list of table names, e.g. [orders, "
     "customers]."),
    (("type: hive", "type: distcp"), "type is 'distcp'; allowed values are hdfs, hdfs-snapshot, hive."),
    (("sourceDatabases: [sales]", "sourceDatabases: [sales; drop]"),
     "sourceDatabases[0] is 'sales; drop', which is not valid: use letters, digits and underscores."),
])
def test_schema_messages_name_the_field_and_what_to_write(change: tuple[str, str], message: str) -> None:
    assert _messages(HIVE.replace(*change)) == [f"Mirror 'sales-dr': {message}"]


def test_a_source_folder_is_an_absolute_path() -> None:
    (message,) = _messages(HDFS.replace("/data/orders]", "data/orders]"))
    assert message == ("Mirror 'sales-dr': sourceDir[1] is 'data/orders', which is not valid: give an absolute folder "
                       "under the cluster root, starting with /.")


def test_the_repo_finds_mirrors_and_their_clusters(tmp_path: Path) -> None:
    (tmp_path / "mirrors").mkdir()
    (tmp_path / "mirrors" / "sales-dr.yaml").write_text(HDFS)
    repo = ConfigRepo.load(tmp_path)
    assert repo.mirror("sales-dr").name == "sales-dr"
    assert repo.dependencies(EntityRef(Kind.MIRROR, "sales-dr")) == (
        EntityRef(Kind.CLUSTER, "backup"), EntityRef(Kind.CLUSTER, "primary"))
    assert repo.dependents(EntityRef(Kind.CLUSTER, "primary")) == (EntityRef(Kind.MIRROR, "sales-dr"),)
    with pytest.raises(Exception, match="Unknown mirror 'orders-dr' in repo .*: known mirrors are sales-dr."):
        repo.mirror("orders-dr")
