"""PostgreSQL: unquoted names stored in lower case, `CREATE TABLE ... (LIKE ...)` and an UPDATE joined to the staging
table with FROM."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.core.storage.jdbc.dialect import SqlDialect


@dataclass(frozen=True)
class PostgresDialect(SqlDialect):
    def create_like(self, staging: str, target: str) -> str:
        return f"CREATE TABLE {self.table(staging)} (LIKE {self.table(target)} INCLUDING DEFAULTS)"

    def update_matching(self, target: str, staging: str, columns: Sequence[str], keys: Sequence[str]) -> str:
        matched = " AND ".join(f"d.{self.quote(key)} = s.{self.quote(key)}" for key in keys)
        values = [column for column in columns if column not in keys]
        assigned = ", ".join(f"{self.quote(column)} = s.{self.quote(column)}" for column in values)
        return f"UPDATE {self.table(target)} AS d SET {assigned} FROM {self.table(staging)} AS s WHERE {matched}"


DIALECT = PostgresDialect("postgres", ("postgres",), text_type="TEXT", folds_to_upper=False)
