"""An export's update key as the target table spells its columns (toolkit/actions/database_export/instance_rows.py): the
load's statements quote names, and Derby, Oracle and DB2 store an unquoted `day` as DAY."""

from __future__ import annotations

import pytest

from toolkit.actions.database_export.instance_rows import require_key_columns
from toolkit.errors import UsageError


def test_the_update_key_is_spelled_as_the_target_table_spells_its_columns() -> None:
    assert require_key_columns(("day", "region"), ["DAY", "REGION", "TOTAL"], "daily_totals", "x") == (
        "DAY", "REGION")
    assert require_key_columns((), ["DAY"], "daily_totals", "x") == ()


def test_a_key_the_target_lacks_is_one_sentence_naming_it() -> None:
    with pytest.raises(UsageError) as refused:
        require_key_columns(("day", "shop"), ["DAY", "TOTAL"], "daily_totals", "The export of feed 'totals'")
    assert str(refused.value) == (
        "The export of feed 'totals': its arguments.update-key names 'shop', which the target table daily_totals does "
        "not have (its columns: DAY, TOTAL); correct the update key.")
