"""The SELECT of an import's rows (toolkit/actions/database_import/source_rows.py) on a table as the database describes
it: its name and columns as the database stores them (Derby's ORDERS and ID for a definition's `orders` and `id`), the
high-water mark's values as literals of the check column's type, and a check column the table lacks."""

from __future__ import annotations

import pytest

from toolkit.actions.database_import.source_rows import SourceTable, range_condition, source_query
from toolkit.core.ledger.database_transfers import ImportedRange
from toolkit.core.storage.jdbc.dialect import TableColumn
from toolkit.core.storage.jdbc.registry import dialect_for
from toolkit.errors import UsageError

DERBY = dialect_for("generic")
ORDERS = SourceTable("ORDERS", (TableColumn("ID", -5, "BIGINT"), TableColumn("UPDATED", 93, "TIMESTAMP")),
                     "the import of feed 'orders'")


def test_the_rows_past_the_mark_are_selected_by_the_columns_own_type_and_the_names_the_database_stores() -> None:
    assert source_query(DERBY, ORDERS, ImportedRange("id", "100", "130")) == (
        'SELECT * FROM "ORDERS" WHERE "ID" > 100 AND "ID" <= 130')
    assert range_condition(DERBY, ORDERS, ImportedRange("updated", None, "2026-01-01 10:00:00.000002")) == (
        "\"UPDATED\" <= '2026-01-01 10:00:00.000002'")
    assert source_query(DERBY, ORDERS, ImportedRange()) == 'SELECT * FROM "ORDERS"'
    assert range_condition(DERBY, ORDERS, ImportedRange("id", None, None)) == "1 = 0"  # an empty table


def test_a_check_column_the_table_lacks_is_one_sentence_naming_it_and_the_tables_columns() -> None:
    with pytest.raises(UsageError) as refused:
        range_condition(DERBY, ORDERS, ImportedRange("changed", "1", "2"))
    assert str(refused.value) == (
        "the import of feed 'orders': its arguments.check-column names 'changed', which the table does not have (its "
        "columns: ID, UPDATED); correct arguments.check-column.")
