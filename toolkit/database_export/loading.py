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

from toolkit.entities.model import LoadType
from toolkit.errors import UsageError
from toolkit.storage.jdbc.dialect import SqlDialect

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


def create_exports_table(dialect: SqlDialect, table: str) -> str:
    return (f"CREATE TABLE {dialect.table(table)} (feed VARCHAR(128) NOT NULL, cluster VARCHAR(64) NOT NULL, "
            "instance VARCHAR(17) NOT NULL, run_id VARCHAR(64) NOT NULL, rows_loaded BIGINT NOT NULL, "
            "PRIMARY KEY (feed, cluster, instance, run_id))")


def record_export(dialect: SqlDialect, table: str, instance: ExportedInstance, rows: int) -> str:
    values = ", ".join(dialect.string(value) for value in (instance.feed, instance.cluster, instance.time,
                                                           instance.run_id))
    return (f"INSERT INTO {dialect.table(table)} (feed, cluster, instance, run_id, rows_loaded) "
            f"VALUES ({values}, {int(rows)})")


def find_export(dialect: SqlDialect, table: str, instance: ExportedInstance) -> str:
    """The query of the rows loaded by `instance`'s run (one row when its transaction committed, none otherwise)."""
    conditions = " AND ".join(f"{column} = {dialect.string(value)}" for column, value in (
        ("feed", instance.feed), ("cluster", instance.cluster), ("instance", instance.time),
        ("run_id", instance.run_id)))
    return f"SELECT rows_loaded FROM {dialect.table(table)} WHERE {conditions}"
