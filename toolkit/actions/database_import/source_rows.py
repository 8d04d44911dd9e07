"""The rows an import reads from its table, as a DataFrame of Spark's JDBC source: the range of the check column an
incremental import reads, the columns its `fields` take, read in parallel slices of `split-by` (Sqoop's
`--split-by` and `--num-mappers`), and converted to the columns the feed declares.

An import read in more than one slice that names no `split-by` is split by the table's primary key (the key's
first column, which its index orders), found through the connection's metadata as Sqoop does; a table without
one stops the import before anything is written (exit 2).

A slice is a range of the split column between the smallest and largest value of the rows read (or the bounds
`boundary-query` gives), as Spark's `partitionColumn`, `lowerBound`, `upperBound` and `numPartitions` read it: the
first and last slices are open-ended, so every row is read whatever the bounds. An integral split column's slices
are no narrower than one fetch, so a small incremental read is one query. Rows are fetched `fetch-size` at a
time (default 10,000: PostgreSQL's driver would otherwise hold a whole slice in memory).

A value that does not convert to the type the feed declares for its column stops the import before anything is
published, naming the column, the value and the type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Column
from toolkit.core.ledger.database_transfers import ImportedRange
from toolkit.core.storage.jdbc.connection import DatabaseSession
from toolkit.core.storage.jdbc.dialect import SqlDialect, TableColumn
from toolkit.errors import UsageError
from toolkit.services.datasource_access.fields import spelled_as

if TYPE_CHECKING:
    from pyspark.sql import Column as SparkColumn
    from pyspark.sql import DataFrame, SparkSession

ARGUMENTS = ("check-column", "split-by", "num-mappers", "fetch-size", "boundary-query")  # what the import reads
DEFAULT_FETCH_SIZE = 10_000
DEFAULT_MAPPERS = 4  # Sqoop's, when split-by is given without num-mappers
CONVERSION_FAILED = "feed-toolkit: "  # starts the message a failed conversion raises in Spark


@dataclass(frozen=True)
class ReadSettings:
    """How the table is read, from the import's `arguments` (Sqoop's option names)."""

    split_by: str | None
    mappers: int
    fetch_size: int
    boundary_query: str | None

    @classmethod
    def of(cls, arguments: Mapping[str, str], owner: str) -> ReadSettings:
        def whole(name: str, default: int) -> int:
            text = arguments.get(name, "").strip()
            if not text:
                return default
            if not text.isascii() or not text.isdigit() or int(text) < 1:
                raise UsageError(f"{owner}: arguments.{name} is {text!r}, not a whole number from 1.")
            return int(text)

        split_by = arguments.get("split-by", "").strip() or None
        return cls(split_by, whole("num-mappers", DEFAULT_MAPPERS if split_by else 1),
                   whole("fetch-size", DEFAULT_FETCH_SIZE), arguments.get("boundary-query", "").strip() or None)


@dataclass(frozen=True)
class SourceTable:
    """The table an import reads: its name as the database stores it, its columns (their names as the database
    spells them, their types), and the import, as its messages name it."""

    name: str
    columns: tuple[TableColumn, ...]
    owner: str

    def column(self, name: str, argument: str) -> TableColumn:
        """The column `arguments.<argument>` names, as the table spells it; UsageError when the table has none."""
        names = [column.name for column in self.columns]
        spelled, _ = spelled_as([name], names)
        if not spelled:
            raise UsageError(f"{self.owner}: its arguments.{argument} names '{name}', which the table does not have "
                             f"(its columns: {', '.join(names)}); correct arguments.{argument}.")
        return self.columns[names.index(spelled[0])]


def source_table(database: DatabaseSession, table: str, owner: str) -> SourceTable | None:
    """`table` as the database stores it, with its columns; None when the database has no such table."""
    stored = database.stored_table(table)
    return None if stored is None else SourceTable(stored, database.columns(stored), owner)


def with_split_column(database: DatabaseSession, source: SourceTable, settings: ReadSettings) -> ReadSettings:
    """`settings` with the column a read in more than one slice is split by, as the table spells it: the one
    `split-by` names, else the first column of the table's primary key. UsageError, before anything is written,
    when the table has no such column or key, or the column is of a type Spark cannot split a read by."""
    if settings.mappers < 2:
        return settings
    if settings.split_by:
        column = source.column(settings.split_by, "split-by")
        named = f"its arguments.split-by names '{column.name}'"
    else:
        key = database.primary_key(source.name)
        if not key:
            raise UsageError(f"{_sentence_start(source.owner)}: it reads the table in {settings.mappers} parts "
                             "(arguments.num-mappers) and names no column to split it by, and the table has no "
                             "primary key to split it by instead; add arguments.split-by, or set "
                             "arguments.num-mappers to 1 to read it in one part.")
        column = source.column(key[0], "split-by")
        named = f"it names no arguments.split-by and the table's primary key starts with '{column.name}'"
    if not column.splits_a_read:
        raise UsageError(f"{_sentence_start(source.owner)}: {named}, a column of type {column.type_name}, which "
                         "cannot split a read (Spark's JDBC source splits by a number, a date or a timestamp); name "
                         "such a column in arguments.split-by, or set arguments.num-mappers to 1.")
    return replace(settings, split_by=column.name)


def _sentence_start(owner: str) -> str:
    return owner[0].upper() + owner[1:]


def range_condition(dialect: SqlDialect, source: SourceTable, rows: ImportedRange) -> str:
    """The WHERE condition of the rows in `rows` ("" for a full import), each value a literal of the check
    column's type."""
    if rows.column is None:
        return ""
    if rows.up_to is None:  # the table had no row with a value in the column
        return "1 = 0"
    column = source.column(rows.column, "check-column")
    parts = [dialect.up_to(column, rows.up_to)]
    if rows.after is not None:
        parts.insert(0, dialect.after(column, rows.after))
    return " AND ".join(parts)


def source_query(dialect: SqlDialect, source: SourceTable, rows: ImportedRange) -> str:
    """The SELECT of the rows to import (what lineage's SQL facet shows)."""
    condition = range_condition(dialect, source, rows)
    return f"SELECT * FROM {dialect.table(source.name)}" + (f" WHERE {condition}" if condition else "")


def largest(database: DatabaseSession, source: SourceTable, check_column: str, after: str | None) -> str | None:
    """The largest value of `check_column` past `after` as the database spells it; None when no row is past it."""
    dialect = database.endpoint.dialect
    column = source.column(check_column, "check-column")
    where = f" WHERE {dialect.after(column, after)}" if after is not None else ""
    row = database.first_row(f"SELECT {dialect.largest_as_text(column)} FROM {dialect.table(source.name)}{where}")
    return row[0] if row else None


def read_rows(spark: SparkSession, database: DatabaseSession, source: SourceTable, rows: ImportedRange,
              settings: ReadSettings) -> DataFrame:
    """The rows of the table in `rows`, read in the slices `settings` ask for."""
    endpoint = database.endpoint
    query = f"({source_query(endpoint.dialect, source, rows)}) feed_toolkit_import"
    reader = (spark.read.format("jdbc").options(**endpoint.spark_options())
              .option("dbtable", query).option("fetchsize", settings.fetch_size))
    if settings.split_by and settings.mappers > 1:
        split_by = source.column(settings.split_by, "split-by").name
        bounds = _bounds(database, query, split_by, settings)
        slices = _slices(bounds, settings) if bounds is not None else 1
        if bounds is not None and slices > 1:
            reader = (reader.option("partitionColumn", split_by).option("lowerBound", bounds[0])
                      .option("upperBound", bounds[1]).option("numPartitions", slices))
    return reader.load()


def _slices(bounds: tuple[str, str], settings: ReadSettings) -> int:
    """`num-mappers` slices, but none narrower than one fetch of an integral split column's values: an incremental
    import of a few thousand new rows is one query, not `num-mappers` connections and tasks."""
    try:
        span = int(bounds[1]) - int(bounds[0]) + 1
    except ValueError:  # a date, a time, a decimal: no count of values to go by
        return settings.mappers
    return max(1, min(settings.mappers, -(-span // settings.fetch_size)))


def _bounds(database: DatabaseSession, query: str, split_by: str, settings: ReadSettings) -> tuple[str, str] | None:
    """The smallest and largest value of the split column among the rows read (or what `boundary-query` says);
    None when there is no row."""
    column = database.endpoint.dialect.quote(split_by)
    sql = settings.boundary_query or f"SELECT MIN({column}), MAX({column}) FROM {query}"
    row = database.first_row(sql)
    if len(row) < 2 or row[0] is None or row[1] is None:
        return None
    return row[0], row[1]


def converted(frame: DataFrame, columns: Sequence[Column], owner: str) -> DataFrame:
    """`frame` as the columns the feed declares, in their order, each of its type: a column the table lacks is
    a UsageError before anything is read; a value that does not convert fails the write (`conversion_error`)."""
    if not columns:
        return frame
    by_name = {name.lower(): name for name in frame.columns}
    missing = [column.name for column in columns if column.name.lower() not in by_name]
    if missing:
        raise UsageError(f"{owner}: the feed declares the column(s) {', '.join(repr(n) for n in missing)}, which the "
                         f"rows read do not have (their columns: {', '.join(frame.columns)}); correct the feed's "
                         "columns or the import's fields.")
    types = dict(frame.dtypes)
    sources = [by_name[column.name.lower()] for column in columns]
    return frame.select(*(_checked_cast(source, types[source], column, owner)
                          for source, column in zip(sources, columns, strict=True)))


def _checked_cast(source: str, source_type: str, column: Column, owner: str) -> SparkColumn:
    from pyspark.sql import functions

    value = functions.col(f"`{source}`")
    if source_type == column.type.replace(" ", "").lower():
        return value.alias(column.name)
    cast = functions.expr(f"try_cast(`{source}` AS {column.type})")
    failure = functions.raise_error(functions.concat(
        functions.lit(f"{CONVERSION_FAILED}{owner}: the value '"), value.cast("string"),
        functions.lit(f"' of column '{source}' does not convert to {column.type}, the type the feed declares for "
                      f"'{column.name}'; correct the feed's column type or the table's data.")))
    return functions.coalesce(cast, functions.when(value.isNotNull(), failure)).alias(column.name)


def conversion_error(error: BaseException) -> str | None:
    """The sentence of a conversion that failed in Spark (raised by `converted`), None for another error."""
    text = str(error)
    start = text.find(CONVERSION_FAILED)
    if start < 0:
        return None
    sentence = text[start + len(CONVERSION_FAILED):]
    end = sentence.find("the table's data.")
    return sentence[: end + len("the table's data.")] if end >= 0 else sentence.splitlines()[0]
