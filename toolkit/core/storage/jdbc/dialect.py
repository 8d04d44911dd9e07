"""The SQL the import and export send to a database besides Spark's own reads and writes: quoting, the text of a
column's largest value (an incremental import's high-water mark, in the database's own spelling) and the literal it
is compared as, a staging table shaped like the target, and the statements that load the staging rows into the
target inside one transaction.

`SqlDialect` speaks standard SQL (Derby, DB2, HSQLDB and Teradata accept nothing else); a database whose own form
is better or needed (a join in an UPDATE, `CREATE TABLE ... LIKE`, Oracle's types) has a `*_dialect.py` module of
this package, with a subclass or its own settings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

# java.sql.Types codes: TINYINT, SMALLINT, INTEGER, BIGINT, NUMERIC, DECIMAL; FLOAT, REAL, DOUBLE.
_EXACT_NUMBERS = frozenset({-6, 5, 4, -5, 2, 3})
_APPROXIMATE_NUMBERS = frozenset({6, 7, 8})
_DATES_AND_TIMES = frozenset({91, 93, 2014})  # DATE, TIMESTAMP, TIMESTAMP_WITH_TIMEZONE
_TYPE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_ ]*")


@dataclass(frozen=True)
class TableColumn:
    """A column of a table as the database's driver describes it: its name as the database spells it, its
    java.sql.Types code and the database's own name of its type."""

    name: str
    sql_type: int
    type_name: str

    @property
    def exact_number(self) -> bool:
        return self.sql_type in _EXACT_NUMBERS

    @property
    def approximate_number(self) -> bool:
        return self.sql_type in _APPROXIMATE_NUMBERS

    @property
    def splits_a_read(self) -> bool:
        """Whether Spark's JDBC source can read the table in ranges of this column: a number, a date or a time."""
        return self.exact_number or self.approximate_number or self.sql_type in _DATES_AND_TIMES


@dataclass(frozen=True)
class SqlDialect:
    """`name` is what a dialect module registers; `types` the datasource types it serves; `folds_to_upper` whether
    the database stores an unquoted name in upper case (standard SQL) rather than as written or in lower case;
    `with_no_data` whether its CREATE TABLE AS takes standard SQL's `WITH NO DATA`; `varchar_type` and
    `bigint_type` its names of those types, for the toolkit's own table."""

    name: str
    types: tuple[str, ...]
    quote_char: str = '"'
    text_type: str = "VARCHAR(4000)"  # what a column's value is cast to, to read it as the database spells it
    folds_to_upper: bool = True
    with_no_data: bool = True
    varchar_type: str = "VARCHAR"
    bigint_type: str = "BIGINT"

    def spark_url(self, url: str) -> tuple[str, dict[str, str]]:
        """The URL Spark's JDBC source is given, so that it picks its own dialect of this database, and the
        connection properties that go with that spelling."""
        return url, {}

    # ------------------------------------------------------------------------------------------ names and values
    def quote(self, identifier: str) -> str:
        """An identifier quoted, the quote character doubled inside it."""
        q = self.quote_char
        return f"{q}{identifier.replace(q, q + q)}{q}"

    def table(self, name: str) -> str:
        """A table name (`orders`, `sales.orders`), each part quoted."""
        return ".".join(self.quote(part) for part in name.split("."))

    def string(self, text: str) -> str:
        """A string literal."""
        return "'" + text.replace("'", "''") + "'"

    def columns(self, names: Sequence[str]) -> str:
        return ", ".join(self.quote(name) for name in names)

    def own_column(self, name: str) -> str:
        """A column of the toolkit's own table (`feed_toolkit_exports`), quoted as the database stores the name
        unquoted: the same column as in a table created without quotes, and a word the database reserves (Oracle's
        `cluster`) taken as a name."""
        return self.quote(name.upper() if self.folds_to_upper else name)

    # ------------------------------------------------------------------------------------------ queries
    def largest_as_text(self, column: TableColumn) -> str:
        """The select item of `column`'s largest value, read as text: a number as it is (its driver's text is its
        exact value; Derby casts no number to VARCHAR), any other value cast to text, as the database spells it."""
        largest = f"MAX({self.quote(column.name)})"
        if column.exact_number or column.approximate_number:
            return largest
        return f"CAST({largest} AS {self.text_type})"

    def literal(self, text: str, column: TableColumn) -> str:
        """`text`, a value of `column` as the database spelled it, as a literal of the column's own type, so that
        the database compares it exactly as the column's values: an exact number as a number (Derby and DB2
        compare no number with a string; MySQL compares the two as doubles, which tell no two BIGINTs past 2^53
        apart), an approximate one cast from its text to the column's type, any other value as a string, which
        the database reads as a value of the column's type (a date, a timestamp)."""
        if column.exact_number:
            try:
                number = Decimal(text.strip())
            except InvalidOperation:
                return self.string(text)
            return format(number, "f") if number.is_finite() else self.string(text)
        if column.approximate_number and _TYPE_NAME.fullmatch(column.type_name):
            return self.approximate(text, column.type_name)
        return self.string(text)

    def approximate(self, text: str, type_name: str) -> str:
        """An approximate number's text as a value of its column's type."""
        return f"CAST({self.string(text)} AS {type_name})"

    def after(self, column: TableColumn, text: str) -> str:
        """The condition of the rows whose `column` is past the value the database spelled `text`."""
        return f"{self.quote(column.name)} > {self.literal(text, column)}"

    def up_to(self, column: TableColumn, text: str) -> str:
        return f"{self.quote(column.name)} <= {self.literal(text, column)}"

    # ------------------------------------------------------------------------------------------ staging and loading
    def create_like(self, staging: str, target: str) -> str:
        """A new empty table `staging` with the columns of `target`: standard SQL's `CREATE TABLE ... AS (query)
        WITH NO DATA` (Derby, DB2, HSQLDB and Teradata take no other), or, in a database whose CREATE TABLE AS has
        no `WITH NO DATA` (Oracle, Netezza), a query of no row."""
        query = f"SELECT * FROM {self.table(target)}"
        if self.with_no_data:
            return f"CREATE TABLE {self.table(staging)} AS ({query}) WITH NO DATA"
        return f"CREATE TABLE {self.table(staging)} AS {query} WHERE 1 = 0"

    def drop(self, table: str) -> str:
        return f"DROP TABLE {self.table(table)}"

    def insert_all(self, target: str, staging: str, columns: Sequence[str]) -> str:
        listed = self.columns(columns)
        return f"INSERT INTO {self.table(target)} ({listed}) SELECT {listed} FROM {self.table(staging)}"

    def delete_all(self, target: str) -> str:
        return f"DELETE FROM {self.table(target)}"

    def insert_new(self, target: str, staging: str, columns: Sequence[str], keys: Sequence[str]) -> str:
        """The staging rows whose key the target does not hold, inserted."""
        listed = self.columns(columns)
        matched = " AND ".join(f"d.{self.quote(key)} = s.{self.quote(key)}" for key in keys)
        return (f"INSERT INTO {self.table(target)} ({listed}) SELECT {self.columns_of('s', columns)} FROM "
                f"{self.table(staging)} s WHERE NOT EXISTS (SELECT 1 FROM {self.table(target)} d WHERE {matched})")

    def update_matching(self, target: str, staging: str, columns: Sequence[str], keys: Sequence[str]) -> str:
        """The target rows whose key a staging row holds, given that row's other columns."""
        matched = " AND ".join(f"s.{self.quote(key)} = {self.table(target)}.{self.quote(key)}" for key in keys)
        values = [column for column in columns if column not in keys]
        assigned = ", ".join(f"{self.quote(column)} = (SELECT s.{self.quote(column)} FROM {self.table(staging)} s "
                             f"WHERE {matched})" for column in values)
        return (f"UPDATE {self.table(target)} SET {assigned} WHERE EXISTS (SELECT 1 FROM {self.table(staging)} s "
                f"WHERE {matched})")

    def columns_of(self, alias: str, names: Sequence[str]) -> str:
        return ", ".join(f"{alias}.{self.quote(name)}" for name in names)
