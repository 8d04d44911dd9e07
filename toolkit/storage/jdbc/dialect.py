"""The SQL the import and export send to a database besides Spark's own reads and writes: quoting, the text of a
column's largest value (an incremental import's high-water mark, in the database's own spelling), a staging table
shaped like the target, and the statements that load the staging rows into the target inside one transaction.

`SqlDialect` speaks ANSI SQL, which every database the toolkit knows accepts; a database whose own form is better
(a join in an UPDATE, `CREATE TABLE ... LIKE`) has a `*_dialect.py` module of this package with a subclass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SqlDialect:
    """`name` is what a dialect module registers; `types` the datasource types it serves."""

    name: str
    types: tuple[str, ...]
    quote_char: str = '"'
    text_type: str = "VARCHAR(4000)"  # what a column's value is cast to, to read it as the database spells it

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
        """A table name as the config gives it (`orders`, `sales.orders`), each part quoted."""
        return ".".join(self.quote(part) for part in name.split("."))

    def string(self, text: str) -> str:
        """A string literal."""
        return "'" + text.replace("'", "''") + "'"

    def columns(self, names: Sequence[str]) -> str:
        return ", ".join(self.quote(name) for name in names)

    # ------------------------------------------------------------------------------------------ queries
    def largest_as_text(self, column: str) -> str:
        """The select item of `column`'s largest value as text: compared again as a literal of the column's
        type (`column > '<text>'`), the database reads back exactly the value it wrote."""
        return f"CAST(MAX({self.quote(column)}) AS {self.text_type})"

    def after(self, column: str, text: str) -> str:
        """The condition of the rows whose `column` is past the value the database spelled `text`."""
        return f"{self.quote(column)} > {self.string(text)}"

    def up_to(self, column: str, text: str) -> str:
        return f"{self.quote(column)} <= {self.string(text)}"

    # ------------------------------------------------------------------------------------------ staging and loading
    def create_like(self, staging: str, target: str) -> str:
        """A new empty table `staging` with the columns of `target`."""
        return f"CREATE TABLE {self.table(staging)} AS SELECT * FROM {self.table(target)} WHERE 1 = 0"

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
