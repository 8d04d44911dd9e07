"""Spark's table properties of a data-source table: written for a description (the schema split in parts when
long) and read back for the case of column names the metastore lowered."""

from __future__ import annotations

import json

from toolkit.core.storage.catalog_records import Column, StorageFormat, TableDescription, TableType
from toolkit.core.storage.spark_table_properties import SPARK_SCHEMA_PART_LENGTH, spark_properties, spark_schema_names

STORAGE = StorageFormat("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
                        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", provider="parquet")


def _schema(names: list[str]) -> str:
    return json.dumps({"type": "struct", "fields": [{"name": name, "type": "string", "nullable": True,
                                                      "metadata": {}} for name in names]})


def _description(columns: list[str], partition_columns: list[str]) -> TableDescription:
    return TableDescription("web", "visits", TableType.EXTERNAL, None,
                            tuple(Column(name, "string") for name in columns),
                            tuple(Column(name, "string") for name in partition_columns), STORAGE)


def test_a_short_schema_is_one_property() -> None:
    schema = _schema(["userId", "ds"])
    assert spark_properties(_description(["userId"], ["ds"]), schema) == {
        "spark.sql.sources.provider": "parquet",
        "spark.sql.sources.schema": schema,
        "spark.sql.sources.schema.numPartCols": "1",
        "spark.sql.sources.schema.partCol.0": "ds",
        "spark.sql.partitionProvider": "catalog",
    }
    assert spark_properties(_description(["userId"], []), _schema(["userId"])) == {
        "spark.sql.sources.provider": "parquet", "spark.sql.sources.schema": _schema(["userId"])}


def test_a_long_schema_is_split_in_parts_and_read_back_whole() -> None:
    names = [f"Column{index:04d}" for index in range(150)]
    schema = _schema(names)
    assert len(schema) > 2 * SPARK_SCHEMA_PART_LENGTH
    properties = spark_properties(_description(names, []), schema)
    parts = int(properties["spark.sql.sources.schema.numParts"])
    assert parts == -(-len(schema) // SPARK_SCHEMA_PART_LENGTH)
    assert "spark.sql.sources.schema" not in properties
    assert "".join(properties[f"spark.sql.sources.schema.part.{index}"] for index in range(parts)) == schema
    assert spark_schema_names(properties) == {name.lower(): name for name in names}


def test_schema_names_keep_spark_s_case() -> None:
    assert spark_schema_names({"spark.sql.sources.schema": _schema(["userId", "ds"])}) == {"userid": "userId",
                                                                                         "ds": "ds"}
    assert spark_schema_names({}) == {}
    assert spark_schema_names({"spark.sql.sources.schema": "not json"}) == {}
    assert spark_schema_names({"spark.sql.sources.schema.numParts": "2",
                               "spark.sql.sources.schema.part.0": "{}"}) == {}  # a part is missing
