"""The catalog's records and the helpers both implementations share; no Spark, no metastore."""

from __future__ import annotations

import struct
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from toolkit.storage.catalog_records import Partition, TableInfo, TableType
from toolkit.storage.catalog_thrift import endpoints_of, hive_filter, read_struct
from toolkit.storage.filesystem import StorageError
from toolkit.storage.partition_names import escape_path_name, partition_name, unescape_path_name
from toolkit.storage.partition_specs import full_spec, partial_spec_of
from toolkit.storage.table_formats import data_source, format_of
from toolkit.storage.table_locations import default_table_location

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


def test_hive_filter_says_only_what_it_can() -> None:
    types = {"ds": "string", "region": "string", "hour": "int", "_odd": "string", "and": "string"}
    assert hive_filter({"ds": "2026-11-21", "region": "eu"}, types) == 'ds = "2026-11-21" and region = "eu"'
    assert hive_filter({"region": 'say "hi"'}, types) == "region = 'say \"hi\"'"
    assert hive_filter({"region": "both ' and \""}, types) is None
    assert hive_filter({"hour": "10", "_odd": "x", "and": "y"}, types) is None  # matched after listing
    assert hive_filter({}, types) is None


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">i", len(data)) + data


def test_thrift_binary_structs_are_read_whole() -> None:
    inner = b"\x08" + struct.pack(">h", 1) + struct.pack(">i", -7) + b"\x02" + struct.pack(">h", 2) + b"\x01" + \
        b"\x0a" + struct.pack(">h", 3) + struct.pack(">q", 2**40) + b"\x04" + struct.pack(">h", 4) + \
        struct.pack(">d", 1.5) + b"\x06" + struct.pack(">h", 5) + struct.pack(">h", 3) + b"\x00"
    data = (b"\x0b" + struct.pack(">h", 1) + _string("clicks")
            + b"\x0f" + struct.pack(">h", 2) + b"\x0b" + struct.pack(">i", 2) + _string("a") + _string("é")
            + b"\x0d" + struct.pack(">h", 3) + b"\x0b\x0b" + struct.pack(">i", 1) + _string("k") + _string("v")
            + b"\x0d" + struct.pack(">h", 4) + b"\x0f\x0b" + struct.pack(">i", 1)
            + b"\x0b" + struct.pack(">i", 1) + _string("x") + _string("loc")  # map<list<string>, string>
            + b"\x0c" + struct.pack(">h", 5) + inner
            + b"\x00")
    assert read_struct(data) == {1: "clicks", 2: ["a", "é"], 3: {"k": "v"}, 4: {("x",): "loc"},
                                 5: {1: -7, 2: 1, 3: 2**40, 4: 1.5, 5: 3}}


def test_the_catalog_modules_leave_pyspark_out() -> None:
    modules = ["catalog", "catalog_records", "catalog_factory", "catalog_spark", "catalog_thrift", "hive_sql",
               "partition_names", "partition_specs", "spark_table_properties", "table_formats", "table_locations"]
    code = (f"import sys, {', '.join(f'toolkit.storage.{name}' for name in modules)}; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
