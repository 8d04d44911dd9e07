"""The export record `_metadata.json`: written and read back unchanged; anything else refused, naming the file."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from toolkit.actions.replication.hive.metadata import ExportedFile, ExportMetadata
from toolkit.core.storage.catalog_records import Column, StorageFormat, TableDescription, TableType
from toolkit.core.storage.filesystem import StorageError

WHERE = "file:///staging/x/_metadata.json"
TABLE = TableDescription(
    database="web", name="sessions", table_type=TableType.EXTERNAL, location="hdfs://nn:8020/data/sessions",
    columns=(Column("Id", "int", "the id"), Column("tags", "array<string>")),
    partition_columns=(Column("ds", "string"), Column("region", "string")),
    storage=StorageFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                          "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
                          "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                          {"serialization.format": "1"}, None),
    properties={"team": "web"}, comment="Sessions, per day and region.",
)
RECORD = ExportMetadata(
    export_id="0123abcd0123abcd", table=TABLE, partition={"ds": "2026-11-21", "region": "eu"},
    files=(ExportedFile("part-0.parquet", 10, "0badcafe"), ExportedFile("sub/part-1.parquet", 0, "00000000")),
    source_location="hdfs://nn:8020/data/sessions/ds=2026-11-21/region=eu", feed="sessions", cluster="primary",
    instance_time=datetime(2026, 11, 21, tzinfo=timezone.utc),
)


def _document() -> dict:
    return json.loads(RECORD.to_json())


def test_written_and_read_back_unchanged() -> None:
    again = ExportMetadata.from_json(RECORD.to_json(), WHERE)
    assert again == RECORD
    assert again.table.properties == {"team": "web"} and again.table.columns[0].comment == "the id"
    document = _document()
    assert document["totals"] == {"files": 2, "bytes": 10}
    assert document["table"]["partition_keys"] == [{"name": "ds", "type": "string", "comment": None},
                                                   {"name": "region", "type": "string", "comment": None}]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="something else"), "is not a Hive export of the toolkit"),
    (lambda d: d.update(format_version=2), "has format version 2, newer than this toolkit reads"),
    (lambda d: d["files"][0].update(path="../../etc/passwd"), "leaves its directory"),
    (lambda d: d["files"][0].update(path="/etc/passwd"), "is not a relative path"),
    (lambda d: d["files"][0].update(crc32c="XYZ"), "is not 8 lower-case hex digits"),
    (lambda d: d["files"][0].update(size=-1), "is not a byte count"),
    (lambda d: d["files"].append(dict(d["files"][0])), "a file is listed twice"),
    (lambda d: d["partition"].update(values={"ds": "2026-11-21"}), "not the partition keys"),
    (lambda d: d.update(export_id="../x"), "is not letters, digits"),
    (lambda d: d.update(instance_time="yesterday"), "is damaged"),
    (lambda d: d["table"].pop("columns"), "is not a complete export record"),
    (lambda d: d["table"].update(type="TEMPORARY"), "is not a complete export record"),
])
def test_a_damaged_record_is_refused_naming_the_file(change, message: str) -> None:
    document = _document()
    change(document)
    with pytest.raises(StorageError, match=message) as raised:
        ExportMetadata.from_json(json.dumps(document).encode(), WHERE)
    assert WHERE in str(raised.value)


def test_not_json_is_refused() -> None:
    with pytest.raises(StorageError, match=rf"{WHERE} is not JSON .*export the partition again"):
        ExportMetadata.from_json(b"{not json", WHERE)
