"""Hive SQL as both catalogs spell it: quoted names and strings, column definitions, property lists, and Hive's
names of Spark's schema types."""

from __future__ import annotations

import pytest

from toolkit.core.storage.catalog_records import Column
from toolkit.core.storage.hive_sql import column_definition, hive_type, property_list, quote_identifier, quote_string


def test_names_and_strings_are_quoted_whole() -> None:
    assert quote_identifier("visits") == "`visits`"
    assert quote_identifier("odd`name") == "`odd``name`"
    assert quote_string("plain") == "'plain'"
    assert quote_string("it's") == "'it\\'s'"
    assert quote_string("C:\\dir\\") == "'C:\\\\dir\\\\'"
    assert quote_string("file:///w/a b") == "'file:///w/a b'"


def test_column_definitions_and_property_lists() -> None:
    assert column_definition(Column("id", "int")) == "`id` int"
    assert column_definition(Column("Amount", "decimal(10,2)", "in euro's")) == \
        "`Amount` decimal(10,2) COMMENT 'in euro\\'s'"
    assert column_definition(Column("tags", "array<string>", "")) == "`tags` array<string>"
    assert property_list({"owner.team": "web", "note": "it's"}) == "'owner.team' = 'web', 'note' = 'it\\'s'"
    assert property_list({}) == ""


@pytest.mark.parametrize(("spark_type", "metadata", "expected"), [
    ("integer", None, "int"),
    ("long", None, "bigint"),
    ("short", None, "smallint"),
    ("byte", None, "tinyint"),
    ("string", None, "string"),
    ("decimal(10,2)", None, "decimal(10,2)"),
    ("string", {"__CHAR_VARCHAR_TYPE_STRING": "varchar(20)"}, "varchar(20)"),
    ({"type": "array", "elementType": "long", "containsNull": True}, None, "array<bigint>"),
    ({"type": "map", "keyType": "string", "valueType": "integer"}, None, "map<string,int>"),
    ({"type": "struct", "fields": [{"name": "a", "type": "integer", "metadata": {}},
                                   {"name": "b", "type": {"type": "array", "elementType": "string"}}]},
     None, "struct<a:int,b:array<string>>"),
    ({"type": "udt", "class": "x.Y"}, None, None),
    ({"type": "array", "elementType": {"type": "udt"}}, None, None),
])
def test_hive_type(spark_type, metadata, expected) -> None:
    assert hive_type(spark_type, metadata) == expected
