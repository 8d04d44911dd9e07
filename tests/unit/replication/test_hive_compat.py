"""Whether an existing table can take an exported partition, and the clauses that say why not."""

from __future__ import annotations

import dataclasses

from toolkit.actions.replication.hive.compat import describe_differences, differences
from toolkit.core.storage.catalog_records import Column, StorageFormat, TableDescription, TableType

PARQUET = StorageFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
                        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", {"serialization.format": "1"})
TEXT = StorageFormat("org.apache.hadoop.mapred.TextInputFormat",
                     "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
                     "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", {"field.delim": ","})
EXPORTED = TableDescription("web", "sessions", TableType.MANAGED, "file:///a",
                            (Column("id", "int"), Column("amount", "decimal(10,2)")), (Column("ds", "string"),),
                            PARQUET, {"team": "web"}, "a comment")


def target(**changes) -> TableDescription:
    return dataclasses.replace(EXPORTED, name="copy", location="file:///b", table_type=TableType.EXTERNAL,
                               properties={}, comment=None, **changes)


def test_the_same_shape_is_compatible_whatever_the_names_case_comments_type_and_properties() -> None:
    assert differences(EXPORTED, target()) == []
    assert differences(EXPORTED, target(columns=(Column("ID", "INT", "x"), Column("Amount", "decimal(10, 2)")))) == []
    # Spark's `path`, and Hive's default serialization.format, are not differences.
    relaxed = dataclasses.replace(PARQUET, serde_parameters={"path": "file:///elsewhere"})
    assert differences(EXPORTED, target(storage=relaxed)) == []


def test_columns_types_and_order() -> None:
    assert differences(EXPORTED, target(columns=(Column("id", "bigint"), Column("amount", "decimal(10,2)")))) == \
        ["column 1 is `id bigint` there and `id int` in the export"]
    assert differences(EXPORTED, target(columns=(Column("amount", "decimal(10,2)"), Column("id", "int")))) == \
        ["column 1 is `amount decimal(10,2)` there and `id int` in the export",
         "column 2 is `id int` there and `amount decimal(10,2)` in the export"]
    assert differences(EXPORTED, target(columns=(Column("id", "int"),))) == \
        ["it lacks the export's column `amount decimal(10,2)`"]
    assert differences(EXPORTED, target(columns=EXPORTED.columns + (Column("extra", "string"),))) == \
        ["it has an extra column `extra string`"]


def test_partition_keys() -> None:
    assert differences(EXPORTED, target(partition_columns=(Column("ds", "string"), Column("region", "string")))) \
        == ["it has an extra partition key `region string`"]
    assert differences(EXPORTED, target(partition_columns=(Column("ds", "date"),))) == \
        ["partition key 1 is `ds date` there and `ds string` in the export"]


def test_storage() -> None:
    assert differences(EXPORTED, target(storage=TEXT)) == ["its storage format is text and the export's is parquet"]
    tab = dataclasses.replace(TEXT, serde_parameters={"field.delim": "\t"})
    assert differences(dataclasses.replace(EXPORTED, storage=TEXT), target(storage=tab)) == \
        ["its serde parameters differ from the export's in field.delim ('\\t' there, ',' in the export)"]
    other_serde = dataclasses.replace(PARQUET, serde="com.example.ParquetSerDe")
    assert differences(EXPORTED, target(storage=other_serde)) == \
        ["its serde is ParquetSerDe and the export's is ParquetHiveSerDe"]


def test_many_differences_are_summed_up() -> None:
    found = differences(EXPORTED, target(columns=(Column("a", "string"), Column("b", "string"), Column("c", "x")),
                                         partition_columns=(Column("dt", "string"),), storage=TEXT))
    assert len(found) == 5
    assert describe_differences(found).endswith("; and 1 more difference")
