"""Where a metastore puts a table that is given no location: below its database's location, in a directory
named by the table's lower-cased name (Hive's and Spark's rule). Both catalogs spell it out themselves, so a
Spark data-source table's `path` and an EXTERNAL table created without a location get the same place."""

from __future__ import annotations


def default_table_location(database_location: str, table: str) -> str:
    """`<database location>/<table, lower case>`: `hdfs://nn/warehouse/web.db` and `Visits` ->
    `hdfs://nn/warehouse/web.db/visits`."""
    return f"{database_location.rstrip('/')}/{table.lower()}"
