"""`toolkit convert-falcon` turns a Falcon mirroring job's properties file (what `falcon extension -submit` took) into
a mirror entity; the jobs are written from the examples of Falcon's own extension properties."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.convert.conftest import Run
from tests.unit.convert.test_convert_entities import data
from toolkit.authoring.lint.runner import lint_paths
from toolkit.core.el.frequency import Frequency
from toolkit.core.entities.model import HdfsMirrorSpec, HiveMirrorSpec, MirrorType, SnapshotMirrorSpec
from toolkit.core.entities.repo import ConfigRepo

EXTENSIONS = Path(__file__).resolve().parents[2] / "falcon_corpus" / "files" / "addons" / "extensions"
CLUSTER = """kind: cluster
name: {name}
interfaces:
  readonly: {{endpoint: "webhdfs://{name}:9870"}}
  write: {{endpoint: "hdfs://{name}:8020"}}
  execute: {{endpoint: "localhost:8050"}}
  workflow: {{endpoint: "http://localhost:11000/oozie/"}}
locations: {{staging: /projects/falcon/staging, working: /projects/falcon/working}}
"""


def job_file(extension: str, folder: Path, **changes: str | None) -> Path:
    """A job's properties file with the example of every property of Falcon's `extension`, `changes` made (None
    drops the property)."""
    described = json.loads((EXTENSIONS / extension / "src/main/META" / f"{extension}-properties.json").read_text())
    values = {item["propertyName"]: item["example"] for item in described["properties"]}
    values.update(changes)
    lines = [f"{key}={value}" for key, value in values.items() if value is not None]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{extension}.properties"
    path.write_text("# written from Falcon's examples\n" + "\n".join(lines) + "\n")
    return path


def with_clusters(out: Path) -> Path:
    (out / "clusters").mkdir(parents=True, exist_ok=True)
    for name in ("primaryCluster", "backupCluster"):
        (out / "clusters" / f"{name}.yaml").write_text(CLUSTER.format(name=name))
    return out


def test_falcons_hdfs_mirroring_example_is_converted_property_by_property(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in")
    code, out, err = convert(source, "--out", tmp_path / "conf")
    assert (code, err) == (0, "")
    assert out == f"wrote {tmp_path / 'conf' / 'mirrors' / 'hdfs-monthly-sales-dr.yaml'}\n"
    assert data(tmp_path / "conf" / "mirrors" / "hdfs-monthly-sales-dr.yaml") == {
        "kind": "mirror", "name": "hdfs-monthly-sales-dr", "type": "hdfs",
        "tags": {"consumer": "consumer@xyz.com", "owner": "producer@xyz.com", "_department_type": "forecasting"},
        "jobClusterName": "backupCluster", "jobFrequency": "months(1)", "jobTimezone": "GMT",
        "validity": {"start": "2016-03-03T00:00Z", "end": "2018-03-13T00:00Z"},
        "retry": {"policy": "periodic", "delay": "minutes(30)", "attempts": 3, "onTimeout": True},
        "notification": {"type": "email", "to": "user1@gmail.com, user2@gmail.com"},
        "ACL": {"owner": "ambari-qa", "group": "users", "permission": "0x755"},
        "sourceCluster": "primaryCluster", "targetCluster": "backupCluster",
        "sourceDir": ["/user/ambari-qa/primaryCluster/dr/input1", "/user/ambari-qa/primaryCluster/dr/input2"],
        "targetDir": "/user/ambari-qa/backupCluster/dr",
        "overwrite": True, "ignoreErrors": True, "skipChecksum": True, "removeDeletedFiles": True,
        "preserveBlockSize": True, "preserveReplicationNumber": False, "preservePermission": True,
        "preserveUser": True, "preserveGroup": True, "preserveChecksumType": True, "preserveAcl": False,
        "preserveXattr": True, "preserveTimes": True,
        "distcpMaxMaps": 1, "distcpMapBandwidth": 100, "tdeEncryptionEnabled": True,
    }


def test_each_extension_converts_to_a_mirror_that_loads_and_lints_clean(convert: Run, tmp_path: Path) -> None:
    conf = with_clusters(tmp_path / "conf")
    jobs = [job_file(extension, tmp_path / "in")
            for extension in ("hdfs-mirroring", "hdfs-snapshot-mirroring")]
    hive = job_file("hive-mirroring", tmp_path / "in", sourceHiveServer2ExtraOpts=None,
                    targetHiveServer2ExtraOpts=None, sourceHive2KerberosPrincipal=None,
                    targetHive2KerberosPrincipal=None, sourceHiveServer2Uri=None, targetHiveServer2Uri=None)
    code, _, err = convert(*jobs, hive, "--out", conf)
    assert (code, err) == (0, "")
    repo = ConfigRepo.load(conf)
    hdfs, snapshot, hive_mirror = (repo.mirror(name) for name in
                                   ("hdfs-monthly-sales-dr", "hdfs-snapshot-daily-mirror", "hive-monthly-sales-dr"))
    assert (hdfs.type, snapshot.type, hive_mirror.type) == (MirrorType.HDFS, MirrorType.HDFS_SNAPSHOT, MirrorType.HIVE)
    assert isinstance(snapshot.spec, SnapshotMirrorSpec)
    assert snapshot.spec.source_retention.age_limit == Frequency.parse("days(7)")
    assert (snapshot.spec.source_retention.number, snapshot.copy.max_maps, snapshot.copy.map_bandwidth) == (10, 1, 100)
    assert isinstance(hive_mirror.spec, HiveMirrorSpec)
    assert hive_mirror.spec.source_databases == ("salesDb",)
    assert hive_mirror.spec.source_tables == ("monthly_sales1", "monthly_sales2")
    assert (hive_mirror.spec.max_events, hive_mirror.spec.replication_max_maps) == (10000, 1)
    assert isinstance(hdfs.spec, HdfsMirrorSpec) and hdfs.copy.remove_deleted_files
    assert repo.dependencies(hdfs) == (repo.cluster("backupCluster").ref, repo.cluster("primaryCluster").ref)
    assert [str(problem) for problem in lint_paths([conf]).problems] == []


def test_hiveserver2_properties_are_reported_not_dropped(convert: Run, tmp_path: Path) -> None:
    source = job_file("hive-mirroring", tmp_path / "in")
    code, out, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert out == f"wrote {tmp_path / 'conf' / 'mirrors' / 'hive-monthly-sales-dr.yaml'}\n"
    reported = [line for line in err.splitlines() if line.startswith(str(source))]
    keys = [re.search(r"the property '([^']+)'", line).group(1) for line in reported]  # type: ignore[union-attr]
    assert keys == ["sourceHiveServer2Uri", "sourceHiveServer2ExtraOpts", "sourceHive2KerberosPrincipal",
                    "targetHiveServer2Uri", "targetHiveServer2ExtraOpts", "targetHive2KerberosPrincipal"]
    assert all("through the clusters' metastores" in line for line in reported)
    assert reported[0].startswith(f"{source}:17: ")  # the line the property is on (a comment line comes first)
    assert "sourceHiveServer2Uri" not in (tmp_path / "conf" / "mirrors" / "hive-monthly-sales-dr.yaml").read_text()


def test_unknown_property_is_reported_with_its_line(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in", sourceDirs="/typo")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert f"{source}:38: the property 'sourceDirs' is not one of hdfs mirrors, so it was not converted" in err


def test_a_value_of_the_wrong_type_is_reported_by_the_schema_check(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in", distcpMaxMaps="many", overwrite="yes")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert "distcpMaxMaps must be an integer, not the text 'many'" in err
    assert "overwrite must be true or false, not the text 'yes'" in err


def test_java_properties_syntax_is_read_as_java_reads_it(convert: Run, tmp_path: Path) -> None:
    source = tmp_path / "job.properties"
    source.write_text("! a comment\njobName = sales-dr\njobClusterName: backup\njobFrequency days(1)\n"
                      "jobValidityStart=2026-01-01T00:00Z\njobValidityEnd=2027-01-01T00:00Z\n"
                      "sourceCluster=primary\ntargetCluster=backup\n"
                      "sourceDir=/data/eu\\u002Dsales, \\\n    /data/us-sales\ntargetDir=/mirrors/sales\n")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert (code, err) == (0, "")
    mirror = data(tmp_path / "conf" / "mirrors" / "sales-dr.yaml")
    assert (mirror["jobClusterName"], mirror["jobFrequency"]) == ("backup", "days(1)")
    assert mirror["sourceDir"] == ["/data/eu-sales", "/data/us-sales"]


@pytest.mark.parametrize(("content", "says"), [
    ("jobName=x\ntargetDir=/t\n", "has none of sourceDir, sourceSnapshotDir and sourceDatabases"),
    ("jobName=x\nsourceDir=/a\nsourceDatabases=db\n", "has keys of hdfs and hive mirrors (sourceDatabases, sourceDir)"),
    ("extensionName=hdfs-replication\njobName=x\n", "extensionName 'hdfs-replication' is not a mirroring extension"),
    ("sourceDir=/a\ntargetDir=/b\n", "has no jobName"),
    ("jobName=../../etc\nsourceDir=/a\n", "the jobName '../../etc', which cannot be an entity name"),
])
def test_what_is_no_mirroring_job_is_refused_with_nothing_written(convert: Run, tmp_path: Path, content: str,
                                                                   says: str) -> None:
    source = tmp_path / "job.properties"
    source.write_text(content)
    code, out, err = convert(source, "--out", tmp_path / "conf")
    assert (code, out) == (2, "")
    assert says in err and "Traceback" not in err
    assert not (tmp_path / "conf").exists()


def test_a_binary_file_is_refused(convert: Run, tmp_path: Path) -> None:
    source = tmp_path / "job.properties"
    source.write_bytes(b"jobName=x\x00\n")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 2 and "a NUL byte" in err


def test_a_file_of_thousands_of_unknown_keys_lists_the_first_thousand_and_counts_the_rest(convert: Run,
                                                                                           tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in")
    with source.open("a") as extra:
        extra.writelines(f"unknownKey{index}=x\n" for index in range(30_000))
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    reported = err.splitlines()
    assert reported[0].startswith(f"{source}:38: the property 'unknownKey0' is not one of hdfs mirrors")
    assert reported[999].startswith(f"{source}:1037: the property 'unknownKey999' ")
    assert reported[1000] == (f"{source}: 29,000 more things were not converted and are not listed (only the first "
                              "1,000 are): fix those, then convert again.")


def test_a_file_over_a_mebibyte_is_refused(convert: Run, tmp_path: Path) -> None:
    source = tmp_path / "job.properties"
    source.write_text("jobName=x\nsourceDir=/a\n" + "#" * (1 << 20))
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 2 and "is larger than 1 MiB, which no job's properties are" in err


def test_the_snapshot_extensions_own_names_win_and_the_others_are_reported(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-snapshot-mirroring", tmp_path / "in", maxMaps="5", mapBandwidth="10",
                      distcpMaxMaps="99", distcpMapBandwidth="77")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    mirror = data(tmp_path / "conf" / "mirrors" / "hdfs-snapshot-daily-mirror.yaml")
    assert (mirror["distcpMaxMaps"], mirror["distcpMapBandwidth"]) == (5, 10)
    assert "the property 'distcpMaxMaps' is not one of hdfs-snapshot mirrors" in err
    assert "the property 'distcpMapBandwidth' is not one of hdfs-snapshot mirrors" in err


def test_a_report_on_a_key_named_like_a_secret_keeps_its_sentence_and_never_shows_the_value(
        convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in", **{"fs.s3a.secret.key": "s3cret-value"})
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert "the property 'fs.s3a.secret.key' is not one of hdfs mirrors, so it was not converted" in err
    assert "s3cret-value" not in err


def test_a_byte_order_mark_is_not_part_of_the_first_key(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in")
    source.write_bytes(b"\xef\xbb\xbf" + source.read_bytes().split(b"\n", 1)[1])
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert (code, err) == (0, "")


def test_reports_point_at_the_line_of_the_key_not_at_a_continued_value(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in")
    with source.open("a") as extra:
        extra.write("multi=a,\\\n  bogusLooking=1\nbogusLooking=2\nesc\\u0041key=3\n")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert f"{source}:38: the property 'multi' is not one of hdfs mirrors" in err
    assert f"{source}:40: the property 'bogusLooking' is not one of hdfs mirrors" in err
    assert f"{source}: the property 'escAkey' is not one of hdfs mirrors" in err  # a key with escapes: no line


def test_a_property_given_twice_is_reported_at_its_second_line(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in")
    with source.open("a") as extra:
        extra.write("targetDir=/mirrors/other\n")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 1
    assert (f"{source}:38: the property 'targetDir' is given again here: its last value was converted, as Java "
            "reads the file; keep one.") in err
    assert data(tmp_path / "conf" / "mirrors" / "hdfs-monthly-sales-dr.yaml")["targetDir"] == "/mirrors/other"


def test_a_job_name_longer_than_an_entity_name_is_refused(convert: Run, tmp_path: Path) -> None:
    source = job_file("hdfs-mirroring", tmp_path / "in", jobName="a" * 129)
    code, out, err = convert(source, "--out", tmp_path / "conf")
    assert (code, out) == (2, "")
    assert "at most 128 characters" in err and not (tmp_path / "conf").exists()


def test_a_malformed_escape_names_its_line(convert: Run, tmp_path: Path) -> None:
    source = tmp_path / "job.PROPERTIES"
    source.write_text("jobName=x\nsourceDir=/a\ntargetDir=/mirrors/\\u12\n")
    code, _, err = convert(source, "--out", tmp_path / "conf")
    assert code == 2
    assert err == (f"toolkit: {source} is not a properties file Java could read: a malformed \\u escape or line on "
                   "line 3; fix it, or pass the job's properties file.\n")
