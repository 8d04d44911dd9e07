"""The Thrift metastore client reads the metastore's objects as JSON by field names (TSimpleJSONProtocol in the
JVM): texts that JSON must escape, non-ASCII names and values, and a list-bucketed table, whose skewed locations
that protocol cannot write. Tables are built, and results checked, with Hive's own client on a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.metastore import RawMetastore
from toolkit.core.storage.catalog_records import Column, TableType
from toolkit.core.storage.catalog_thrift import JsonWriter, ThriftCatalog
from toolkit.core.storage.filesystem import normalize_uri

DATABASE = "thrift_json_test"
COMMENT = 'Klicks — "all" of them\nsecond line'
NOTE = 'say "hi",\n\ttab \\ backslash \x01 control, 東京 😀 {"json": [1]}'


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("thrift_json")


@pytest.fixture(scope="module")
def raw(spark, thrift_metastore, root: Path) -> Iterator[RawMetastore]:
    client = thrift_metastore.client(spark)
    client.create_database(DATABASE, f"file://{root / DATABASE}")
    yield client
    client.close()


@pytest.fixture(scope="module")
def catalog(spark, thrift_metastore, raw: RawMetastore) -> Iterator[ThriftCatalog]:
    made = ThriftCatalog(spark, thrift_metastore.uri)
    yield made
    made.close()


def test_texts_and_names_that_json_escapes_survive(raw: RawMetastore, catalog: ThriftCatalog, root: Path) -> None:
    raw.create_table(DATABASE, "texts", [("naïve_名", "string"), ("id", "int")], ["ds", "region"],
                     f"file://{root / 'texts'}", external=True)
    made = raw.table(DATABASE, "texts")
    made.getSd().getCols().get(0).setComment('the "naïve" one\nline two')
    made.getParameters().put("comment", COMMENT)
    made.getParameters().put("note", NOTE)
    raw.client.alter_table(DATABASE, "texts", made)
    for values in (["2026-11-21", "zürich"], ["2026-11-21", 'say "hi"\n'], ["2026-11-20", "東京"]):
        raw.add_partition(DATABASE, "texts", values)

    described = catalog.describe_table(DATABASE, "texts")
    assert described.columns == (Column("naïve_名", "string", 'the "naïve" one\nline two'), Column("id", "int"))
    assert described.partition_columns == (Column("ds", "string"), Column("region", "string"))
    assert described.comment == COMMENT
    assert described.properties["note"] == NOTE
    assert described.table_type is TableType.EXTERNAL

    listed = catalog.list_partitions(DATABASE, "texts")
    assert [dict(p.values) for p in listed] == [{"ds": "2026-11-20", "region": "東京"},
                                                {"ds": "2026-11-21", "region": 'say "hi"\n'},
                                                {"ds": "2026-11-21", "region": "zürich"}]
    assert [p.location for p in listed] == [
        normalize_uri(str(raw.client.getPartition(DATABASE, "texts", raw._list(list(p.values.values())))
                          .getSd().getLocation())) for p in listed]
    assert all(p.create_time is not None for p in listed)
    assert [dict(p.values) for p in catalog.list_partitions(DATABASE, "texts", {"region": "zürich"})] == \
        [{"ds": "2026-11-21", "region": "zürich"}]
    assert [dict(p.values) for p in catalog.list_partitions(DATABASE, "texts", {"region": 'say "hi"\n'})] == \
        [{"ds": "2026-11-21", "region": 'say "hi"\n'}]


def test_a_list_bucketed_table_is_read_and_left_as_it_is(spark, raw: RawMetastore, catalog: ThriftCatalog,
                                                         root: Path) -> None:
    location = f"file://{root / 'skewed'}"
    raw.create_table(DATABASE, "skewed", [("id", "int"), ("kind", "string")], ["ds"], location, external=True)
    made = raw.table(DATABASE, "skewed")
    skewed = raw.api.SkewedInfo()
    skewed.setSkewedColNames(raw._list(["kind"]))
    skewed.setSkewedColValues(raw._list([raw._list(["a"])]))
    locations = raw._jvm.java.util.HashMap()
    locations.put(raw._list(["a"]), f"{location}/kind=a")
    skewed.setSkewedColValueLocationMaps(locations)
    made.getSd().setSkewedInfo(skewed)
    made.getSd().setStoredAsSubDirectories(True)
    raw.client.alter_table(DATABASE, "skewed", made)
    raw.add_partition(DATABASE, "skewed", ["2026-11-21"])  # the table's storage, skewed locations included
    with pytest.raises(Exception, match="CollectionMapKeyException"):  # what the client works around
        JsonWriter(spark._jvm).write(raw.table(DATABASE, "skewed"))

    info = catalog.table_info(DATABASE, "skewed")
    assert (info.table_type, info.partition_keys, info.format) == (TableType.EXTERNAL, ("ds",), "parquet")
    assert catalog.describe_table(DATABASE, "skewed").columns == (Column("id", "int"), Column("kind", "string"))
    assert [dict(p.values) for p in catalog.list_partitions(DATABASE, "skewed")] == [{"ds": "2026-11-21"}]

    # The locations stay in the metastore's objects: a partition added from the table's storage keeps them.
    assert catalog.add_partition(DATABASE, "skewed", {"ds": "2026-11-22"})
    added = raw.client.getPartition(DATABASE, "skewed", raw._list(["2026-11-22"]))
    assert {tuple(key): str(value) for key, value in
            added.getSd().getSkewedInfo().getSkewedColValueLocationMaps().items()} == {("a",): f"{location}/kind=a"}

    # The client goes on writing whole objects after the write it could not do.
    raw.create_table(DATABASE, "plain", [("id", "int")], ["ds"], f"file://{root / 'plain'}", external=True)
    raw.add_partition(DATABASE, "plain", ["2026-11-21"])
    assert catalog.table_info(DATABASE, "plain").partition_keys == ("ds",)
    assert [dict(p.values) for p in catalog.list_partitions(DATABASE, "plain")] == [{"ds": "2026-11-21"}]
