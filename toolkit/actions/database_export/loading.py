"""What an export's one transaction does to the target table, by the export's `load` type, and how it records
itself in the target database in the same transaction:

- `snapshot` (the toolkit's own): every row of the target deleted, the staging rows inserted;
- `allowinsert` (Falcon's): with `arguments.update-key`, the target rows whose key a staging row holds updated
  and the others inserted (an upsert that needs no unique index); without it, the staging rows inserted;
- `updateonly` (Falcon's): the target rows whose key a staging row holds updated, nothing inserted.

The export's record in the target database is a row of `feed_toolkit_exports` (feed, cluster, instance, run id,
rows), in the target table's schema, created when missing: inserted by the same transaction that loads the rows, it
is how a run killed after the commit and before it wrote the ledger is known to have loaded them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolkit.core.entities.model import LoadType
from toolkit.core.storage.jdbc.dialect import SqlDialect
from toolkit.errors import UsageError

EXPORTS_TABLE = "feed_toolkit_exports"


@dataclass(frozen=True)
class ExportedInstance:
    """Which instance an export loads, as its row in the exports table names it."""

    feed: str
    cluster: str
    time: str
    run_id: str


def update_keys(arguments: Mapping[str, str], load: LoadType, owner: str) -> tuple[str, ...]:
    """The key columns of `arguments.update-key` (comma-separated, Sqoop's); UsageError when `updateonly` has none."""
    text = arguments.get("update-key", "")
    keys = tuple(key.strip() for key in text.split(",") if key.strip())
    if load is LoadType.UPDATE_ONLY and not keys:
        raise UsageError(f"{owner} is updateonly but names no arguments.update-key (lint FD038): name the column(s) "
                         "that find the row an exported record updates.")
    return keys


def load_statements(dialect: SqlDialect, load: LoadType, target: str, staging: str, columns: Sequence[str],
                    keys: Sequence[str]) -> list[str]:
    """The statements that load the staging rows into the target, in order."""
    if load is LoadType.SNAPSHOT:
        return [dialect.delete_all(target), dialect.insert_all(target, staging, columns)]
    if load is LoadType.UPDATE_ONLY:
        return [dialect.update_matching(target, staging, columns, keys)]
    if not keys:
        return [dialect.insert_all(target, staging, columns)]
    return [dialect.update_matching(target, staging, columns, keys), dialect.insert_new(target, staging, columns, keys)]


def exports_table(target: str) -> str:
    """The exports table beside the target table (in its schema, when the target names one)."""
    schema, _, _ = target.rpartition(".")
    return f"{schema}.{EXPORTS_TABLE}" if schema else EXPORTS_TABLE


# The key of the exports table: the columns that name a run's export (`rows_loaded` beside them holds its count).
_KEY_COLUMNS = ("feed", "cluster", "instance", "run_id")


def create_exports_table(dialect: SqlDialect, table: str) -> str:
    """The exports table in the database's own types, each column quoted as the database stores it unquoted
    (`SqlDialect.own_column`): `cluster` is a word Oracle reserves."""
    text, count = dialect.varchar_type, dialect.bigint_type
    feed, cluster, instance, run_id = (dialect.own_column(name) for name in _KEY_COLUMNS)
    return (f"CREATE TABLE {dialect.table(table)} ({feed} {text}(128) NOT NULL, {cluster} {text}(64) NOT NULL, "
            f"{instance} {text}(17) NOT NULL, {run_id} {text}(64) NOT NULL, {dialect.own_column('rows_loaded')} "
            f"{count} NOT NULL, PRIMARY KEY ({feed}, {cluster}, {instance}, {run_id}))")


def record_export(dialect: SqlDialect, table: str, instance: ExportedInstance, rows: int) -> str:
    columns = ", ".join(dialect.own_column(name) for name in (*_KEY_COLUMNS, "rows_loaded"))
    values = ", ".join(dialect.string(value) for value in _key_values(instance))
    return f"INSERT INTO {dialect.table(table)} ({columns}) VALUES ({values}, {int(rows)})"


def find_export(dialect: SqlDialect, table: str, instance: ExportedInstance) -> str:
    """The query of the rows loaded by `instance`'s run (one row when its transaction committed, none otherwise)."""
    conditions = " AND ".join(f"{dialect.own_column(column)} = {dialect.string(value)}"
                              for column, value in zip(_KEY_COLUMNS, _key_values(instance), strict=True))
    return f"SELECT {dialect.own_column('rows_loaded')} FROM {dialect.table(table)} WHERE {conditions}"


def _key_values(instance: ExportedInstance) -> tuple[str, str, str, str]:
    return instance.feed, instance.cluster, instance.time, instance.run_id
