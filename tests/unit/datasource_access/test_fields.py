"""The columns a definition names, as the database spells them (toolkit/services/datasource_access/fields.py): Derby,
Oracle and DB2 store an unquoted `id` as ID, PostgreSQL as id, and the toolkit's statements quote names."""

from __future__ import annotations

from toolkit.services.datasource_access.fields import spelled_as


def test_a_name_is_the_column_of_its_spelling_else_the_one_that_differs_only_in_case() -> None:
    assert spelled_as(["day", "Region"], ["DAY", "REGION", "TOTAL"]) == (["DAY", "REGION"], [])
    assert spelled_as(["id"], ["ID", "id"]) == (["id"], [])  # a quoted lower-case column beside an unquoted one
    assert spelled_as(["ID"], ["Id", "iD"]) == (["Id"], [])  # the first of those equal but for case
    assert spelled_as(["day", "week"], ["DAY"]) == (["DAY"], ["week"])
