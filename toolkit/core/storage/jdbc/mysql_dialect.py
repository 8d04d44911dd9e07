"""MySQL and MariaDB: back-quoted names (stored as written), backslashes escaped in strings, an approximate number
compared with its text (MySQL casts to FLOAT and DOUBLE only since 8.0.17), `CREATE TABLE ... LIKE` and an UPDATE
joined to the staging table. Spark has no MariaDB dialect of its own: given a `jdbc:mariadb:` URL it would quote
names with double quotes, which MariaDB reads as strings; Spark's JDBC source is given the URL as `jdbc:mysql:`
instead (its MySQL dialect), which MariaDB's Connector/J takes (3.x with `permitMysqlScheme`, set here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.core.storage.jdbc.dialect import SqlDialect


@dataclass(frozen=True)
class MySqlDialect(SqlDialect):
    def string(self, text: str) -> str:
        return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"

    def approximate(self, text: str, type_name: str) -> str:
        return self.string(text)

    def spark_url(self, url: str) -> tuple[str, dict[str, str]]:
        if url.lower().startswith("jdbc:mariadb:"):
            return "jdbc:mysql:" + url[len("jdbc:mariadb:"):], {"permitMysqlScheme": "true"}
        return url, {}

    def create_like(self, staging: str, target: str) -> str:
        return f"CREATE TABLE {self.table(staging)} LIKE {self.table(target)}"

    def update_matching(self, target: str, staging: str, columns: Sequence[str], keys: Sequence[str]) -> str:
        matched = " AND ".join(f"d.{self.quote(key)} = s.{self.quote(key)}" for key in keys)
        values = [column for column in columns if column not in keys]
        assigned = ", ".join(f"d.{self.quote(column)} = s.{self.quote(column)}" for column in values)
        return f"UPDATE {self.table(target)} AS d JOIN {self.table(staging)} AS s ON {matched} SET {assigned}"


DIALECT = MySqlDialect("mysql", ("mysql", "mariadb"), quote_char="`", text_type="CHAR", folds_to_upper=False)
