"""How Hive SQL (and Spark SQL, which reads it) spells what the catalogs put in statements and DDL strings:
quoted names and strings, column definitions, property lists, and Hive's names of Spark's types. Both catalogs
build column definitions the same way: the Spark one for CREATE TABLE, the Thrift one for a schema Spark reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkit.core.storage.catalog_records import Column


def quote_identifier(name: str) -> str:
    """A name in backquotes (a backquote in it doubled): any name is one identifier."""
    return "`" + name.replace("`", "``") + "`"


def quote_string(text: str) -> str:
    """A Spark SQL string literal (backslash escapes, Spark's default)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def column_definition(column: Column) -> str:
    """`name type COMMENT '...'`; the type as given (a caller that did not read it from a metastore checks it)."""
    comment = f" COMMENT {quote_string(column.comment)}" if column.comment else ""
    return f"{quote_identifier(column.name)} {column.type}{comment}"


def property_list(properties: Mapping[str, str]) -> str:
    """`'k1' = 'v1', 'k2' = 'v2'`, for TBLPROPERTIES, OPTIONS and SERDEPROPERTIES."""
    return ", ".join(f"{quote_string(key)} = {quote_string(value)}" for key, value in properties.items())


# Spark's JSON names of simple types that Hive spells otherwise; every other simple type is spelled alike.
_HIVE_NAMES = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint"}
_CHAR_VARCHAR = "__CHAR_VARCHAR_TYPE_STRING"  # Spark keeps a column's char(n)/varchar(n) type here


def hive_type(spark_type: Any, metadata: Mapping[str, Any] | None = None) -> str | None:
    """A type of Spark's schema JSON as Hive spells it (`integer` -> `int`, arrays, maps and structs
    alike); None for what this does not know (the caller asks Spark)."""
    if metadata and isinstance(metadata.get(_CHAR_VARCHAR), str):
        return str(metadata[_CHAR_VARCHAR])
    if isinstance(spark_type, str):
        return _HIVE_NAMES.get(spark_type, spark_type)
    kind = spark_type.get("type") if isinstance(spark_type, dict) else None
    parts: list[str | None]
    if kind == "array":
        parts = [hive_type(spark_type.get("elementType"))]
        return None if None in parts else f"array<{parts[0]}>"
    if kind == "map":
        parts = [hive_type(spark_type.get("keyType")), hive_type(spark_type.get("valueType"))]
        return None if None in parts else f"map<{parts[0]},{parts[1]}>"
    if kind == "struct":
        fields = spark_type.get("fields", [])
        parts = [hive_type(item.get("type"), item.get("metadata")) for item in fields]
        if None in parts:
            return None
        return "struct<" + ",".join(f"{item['name']}:{part}" for item, part in zip(fields, parts, strict=True)) + ">"
    return None
