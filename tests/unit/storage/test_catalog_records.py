"""The catalog's records and the helpers both implementations share; no Spark, no metastore."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolkit.core.storage.catalog_records import Partition, TableInfo, TableType
from toolkit.core.storage.catalog_thrift import endpoints_of, hive_filter, partitions_of, table_info_of
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.partition_names import escape_path_name, partition_name, unescape_path_name
from toolkit.core.storage.partition_specs import full_spec, partial_spec_of
from toolkit.core.storage.table_formats import data_source, format_of
from toolkit.core.storage.table_locations import default_table_location

INFO = TableInfo("db", "clicks", "file:///w/clicks", TableType.EXTERNAL, ("ds", "region"), "parquet")


def test_a_partition_is_an_immutable_ordered_record() -> None:
    created = datetime(2026, 11, 21, tzinfo=timezone.utc)
    source = {"ds": "2026-11-21", "region": "k:v"}
    partition = Partition(source, "file:///w/clicks/ds=2026-11-21/region=k%3Av", created)
    source["ds"] = "changed"
    assert list(partition.values.items()) == [("ds", "2026-11-21"), ("region", "k:v")]
    with pytest.raises(TypeError):
        partition.values["ds"] = "x"  # type: ignore[index]
    assert partition.name == "ds=2026-11-21/region=k%3Av"
    spec = partition.spec
    spec["ds"] = "mutable copy"
    assert partition.values["ds"] == "2026-11-21"
    same = Partition({"ds": "2026-11-21", "region": "k:v"}, partition.location)  # the time is not identity
    assert same == partition and hash(same) == hash(partition) and len({same, partition}) == 1
    assert Partition({"ds": "2026-11-21", "region": "k:v"}, None) != partition


def test_escaping_matches_hive() -> None:
    assert escape_path_name("a/b:c=d%e f") == "a%2Fb%3Ac%3Dd%25e f"
    assert escape_path_name("#'\"*?\\{[]^\x01\x7f") == "%23%27%22%2A%3F%5C%7B%5B%5D%5E%01%7F"
    assert escape_path_name("é()+.-_") == "é()+.-_"
    for text in ["2026-11-21", "a b", "é", "k:v=w/x%y", "it's"]:
        assert unescape_path_name(escape_path_name(text)) == text
    assert partition_name({"ds": "2026-11-21", "a=b": "c/d"}) == "ds=2026-11-21/a%3Db=c%2Fd"


def test_full_and_partial_specs_follow_the_table_keys() -> None:
    assert list(full_spec(INFO, {"REGION": "eu", "ds": "2026-11-21"}).items()) == [("ds", "2026-11-21"),
                                                                                   ("region", "eu")]
    assert partial_spec_of(INFO, {"Region": "eu"}) == {"region": "eu"}
    assert partial_spec_of(INFO, None) == {}
    with pytest.raises(StorageError, match=r"lacks a value for region: give every partition key \(ds, region\)"):
        full_spec(INFO, {"ds": "2026-11-21"})
    with pytest.raises(StorageError, match=r"'country', which is not a partition key of db\.clicks"):
        partial_spec_of(INFO, {"country": "fr"})
    with pytest.raises(StorageError, match="partition values are strings"):
        full_spec(INFO, {"ds": 2026.5, "region": "eu"})
    with pytest.raises(StorageError, match="cannot be empty"):
        partial_spec_of(INFO, {"ds": ""})
    assert full_spec(INFO, {"ds": 2026, "region": "eu"})["ds"] == "2026"
    flat = TableInfo("db", "flat", None, TableType.MANAGED, (), "orc")
    with pytest.raises(StorageError, match=r"db\.flat is not partitioned"):
        partial_spec_of(flat, {})


@pytest.mark.parametrize(("provider", "input_format", "serde", "expected"), [
    ("parquet", None, None, "parquet"),
    ("hive", "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
     "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", "parquet"),
    (None, "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat", "org.apache.hadoop.hive.ql.io.orc.OrcSerde", "orc"),
    (None, "org.apache.hadoop.mapred.TextInputFormat", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", "text"),
    (None, "org.apache.hadoop.mapred.TextInputFormat", "org.apache.hadoop.hive.serde2.OpenCSVSerde", "csv"),
    (None, "org.apache.hadoop.mapred.TextInputFormat", "org.apache.hive.hcatalog.data.JsonSerDe", "json"),
    (None, "org.apache.hadoop.mapred.SequenceFileInputFormat",
     "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", "sequencefile"),
    ("DELTA", None, None, "delta"),
    (None, "com.example.OddInputFormat", None, "com.example.OddInputFormat"),
])
def test_format_of(provider, input_format, serde, expected) -> None:
    assert format_of(provider, input_format, serde) == expected


def test_data_source() -> None:
    assert [data_source(provider) for provider in ["PARQUET", "csv", "hive", "HIVE", "", None]] == \
        ["parquet", "csv", None, None, None, None]


def test_default_table_location() -> None:
    assert default_table_location("hdfs://nn:8020/warehouse/web.db", "Visits") == \
        "hdfs://nn:8020/warehouse/web.db/visits"
    assert default_table_location("file:/w/web.db/", "visits") == "file:/w/web.db/visits"
    assert default_table_location("file:///w/a b.db", "t_1") == "file:///w/a b.db/t_1"


def test_metastore_uris() -> None:
    assert endpoints_of("thrift://a:9083, thrift://b.example:9084") == [("a", 9083), ("b.example", 9084)]
    for bad in ["a:9083", "thrift://a", "http://a:9083", "thrift://a:port"]:
        with pytest.raises(StorageError, match="is not thrift://host:port"):
            endpoints_of(bad)


def test_a_metastore_uri_refused_is_named_without_its_password() -> None:
    with pytest.raises(StorageError) as refused:
        endpoints_of("thrift://hive:p/LEAK@127.0.0.1:9083")
    assert "LEAK" not in str(refused.value)
    assert "'thrift://hive:***@127.0.0.1:9083' is not thrift://host:port" in str(refused.value)


def test_hive_filter_says_only_what_it_can() -> None:
    types = {"ds": "string", "region": "string", "hour": "int", "_odd": "string", "and": "string"}
    assert hive_filter({"ds": "2026-11-21", "region": "eu"}, types) == 'ds = "2026-11-21" and region = "eu"'
    assert hive_filter({"region": 'say "hi"'}, types) == "region = 'say \"hi\"'"
    assert hive_filter({"region": "both ' and \""}, types) is None
    assert hive_filter({"hour": "10", "_odd": "x", "and": "y"}, types) is None  # matched after listing
    assert hive_filter({}, types) is None


# What TSimpleJSONProtocol wrote in the JVM for a table and a listing of its partitions (AddPartitionsResult)
# read from a real metastore: a column `naïve_名`, a comment with quotes, a newline, a tab and a backslash, a
# partition value with quotes and a non-ASCII letter.
THRIFT_JSON = Path(__file__).parent / "thrift_json"


def _captured(name: str) -> dict:
    return json.loads((THRIFT_JSON / name).read_bytes())


def test_a_table_is_read_by_field_names() -> None:
    table = _captured("table.json")
    info, key_types = table_info_of(table, "other_db", "other_table")
    assert info == TableInfo("db", "clicks", "file:///w/clicks", TableType.EXTERNAL, ("ds", "region"), "parquet")
    assert key_types == {"ds": "string", "region": "string"}
    assert [column["name"] for column in table["sd"]["cols"]] == ["naïve_名", "id"]
    assert table["parameters"]["comment"] == 'Klicks — "quoted"\nsecond line\ttab \\ back'


@pytest.mark.parametrize(("table_type", "external", "expected"), [
    ("MANAGED_TABLE", None, TableType.MANAGED), ("EXTERNAL_TABLE", None, TableType.EXTERNAL),
    ("MANAGED_TABLE", "true", TableType.EXTERNAL), ("VIRTUAL_VIEW", None, TableType.VIEW),
    ("MATERIALIZED_VIEW", None, TableType.VIEW), (None, None, TableType.MANAGED)])
def test_the_table_type_by_type_and_external_property(table_type: str | None, external: str | None,
                                                     expected: TableType) -> None:
    table = _captured("table.json")
    table.pop("tableType")
    table["parameters"].pop("EXTERNAL")
    if table_type:
        table["tableType"] = table_type
    if external:
        table["parameters"]["EXTERNAL"] = external
    assert table_info_of(table, "db", "clicks")[0].table_type is expected


def test_fields_a_table_leaves_out_are_defaults() -> None:
    info, key_types = table_info_of({"tableName": "bare"}, "db", "ignored")
    assert info == TableInfo("db", "bare", None, TableType.MANAGED, (), "unknown")
    assert key_types == {}


def test_partitions_are_read_by_field_names_and_sorted() -> None:
    listing = _captured("partitions.json")
    created = [datetime.fromtimestamp(item["createTime"], tz=timezone.utc) for item in listing["partitions"]]
    found = partitions_of(listing, ("ds", "region"), {})
    assert found == [
        Partition({"ds": "2026-11-20", "region": "eu"}, "file:///w/clicks/ds=2026-11-20/region=eu"),
        Partition({"ds": "2026-11-21", "region": 'zürich "hq"'}, "file:///w/clicks/ds=2026-11-21/region=z%C3%BCrich")]
    assert [partition.create_time for partition in found] == created
    assert [p.values["ds"] for p in partitions_of(listing, ("ds", "region"), {"region": 'zürich "hq"'})] == \
        ["2026-11-21"]
    assert partitions_of(listing, ("ds", "region"), {"region": "zürich"}) == []


def test_partitions_without_a_value_for_every_key_are_left_out() -> None:
    listing = {"partitions": [{"values": ["2026-11-21"]}, {"values": ["2026-11-20", "eu"]}, {}]}
    assert partitions_of(listing, ("ds", "region"), {}) == [Partition({"ds": "2026-11-20", "region": "eu"}, None)]
    assert partitions_of({}, ("ds",), {}) == []


