"""One word for a table's storage format (`parquet`, `orc`, `text` ...), read the same way from either metastore:
Spark's data source when the table has one, else sniffed from Hive's input format and serde class names."""

from __future__ import annotations

_FORMAT_BY_CLASS = (
    ("parquet", "parquet"), ("orc", "orc"), ("avro", "avro"), ("opencsvserde", "csv"), ("jsonserde", "json"),
    ("rcfile", "rcfile"), ("sequencefile", "sequencefile"), ("textinputformat", "text"),
)


def data_source(provider: str | None) -> str | None:
    """Spark's data source of a table (`parquet`, lower case), or None for a Hive table (no provider, or `hive`)."""
    return provider.lower() if provider and provider.lower() != "hive" else None


def format_of(provider: str | None, input_format: str | None, serde: str | None) -> str:
    """One word for a table's storage format: Spark's provider when it has one, else from Hive's classes."""
    source = data_source(provider)
    if source:
        return source
    for class_name in (serde, input_format):
        simple_name = (class_name or "").rsplit(".", 1)[-1].lower()
        for needle, name in _FORMAT_BY_CLASS:
            if needle in simple_name:
                return name
    return input_format or serde or "unknown"
