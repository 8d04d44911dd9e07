"""Spark's table properties of a data-source table (as HiveExternalCatalog writes them): its provider, its schema
(names with their case kept, split in parts when long), its partition columns, and that the metastore tracks its
partitions. Without them Spark reads a table as a Hive table; the metastore lowers column names, and these keep
Spark's spelling."""

from __future__ import annotations

import json
from collections.abc import Mapping

from toolkit.core.storage.catalog_records import TableDescription

SPARK_PROVIDER = "spark.sql.sources.provider"
SPARK_SCHEMA = "spark.sql.sources.schema"
SPARK_SCHEMA_PART_LENGTH = 4000  # spark.sql.sources.schemaStringLengthThreshold's default


def spark_schema_names(parameters: Mapping[str, str]) -> dict[str, str]:
    """Column names as Spark wrote them in a table's schema property (the metastore lowers them), by their
    lower-case spelling; {} when the table has no such property or it cannot be read."""
    text = parameters.get(SPARK_SCHEMA)
    if text is None:
        try:
            parts = int(parameters.get(f"{SPARK_SCHEMA}.numParts", "0"))
            text = "".join(parameters[f"{SPARK_SCHEMA}.part.{index}"] for index in range(parts))
        except (KeyError, ValueError):
            return {}
    try:
        fields = json.loads(text).get("fields", []) if text else []
        return {str(item["name"]).lower(): str(item["name"]) for item in fields}
    except (ValueError, AttributeError, KeyError, TypeError):
        return {}


def spark_properties(description: TableDescription, schema_json: str) -> dict[str, str]:
    """The properties Spark writes for a data-source table of this description, whose columns and partition
    columns (in that order) Spark's `StructType.json()` spelled as `schema_json`."""
    properties = {SPARK_PROVIDER: str(description.storage.provider)}
    if len(schema_json) <= SPARK_SCHEMA_PART_LENGTH:
        properties[SPARK_SCHEMA] = schema_json
    else:
        parts = [schema_json[start:start + SPARK_SCHEMA_PART_LENGTH]
                 for start in range(0, len(schema_json), SPARK_SCHEMA_PART_LENGTH)]
        properties[f"{SPARK_SCHEMA}.numParts"] = str(len(parts))
        properties.update({f"{SPARK_SCHEMA}.part.{index}": part for index, part in enumerate(parts)})
    if description.partition_columns:
        properties[f"{SPARK_SCHEMA}.numPartCols"] = str(len(description.partition_columns))
        properties.update({f"{SPARK_SCHEMA}.partCol.{index}": column.name
                           for index, column in enumerate(description.partition_columns)})
        properties["spark.sql.partitionProvider"] = "catalog"
    return properties
