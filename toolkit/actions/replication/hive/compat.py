"""Whether an existing target table can take an exported partition: the same columns with the same types in
the same order, the same partition keys, the same storage format. Anything else would make the imported files
unreadable or wrongly read, so the import refuses, saying what differs.

Names are compared as Hive does (case-insensitively), types after lower-casing and dropping spaces. Comments,
table properties, the table's type and location may differ. Serde parameters are compared without Spark's
`path` and with Hive's default `serialization.format=1` filled in, since Spark writes it for some tables and
not for others.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolkit.core.storage.catalog_records import Column, StorageFormat, TableDescription

_MAX_LISTED = 4  # differences spelled out in the message; the rest are counted
_TYPE_ALIASES = {"integer": "int"}


def normalized_type(text: str) -> str:
    compact = "".join(text.split()).lower()
    return _TYPE_ALIASES.get(compact, compact)


def _column(column: Column) -> str:
    return f"{column.name} {column.type}"


def _same(left: Column, right: Column) -> bool:
    return left.name.lower() == right.name.lower() and normalized_type(left.type) == normalized_type(right.type)


def _column_differences(what: str, target: tuple[Column, ...], exported: tuple[Column, ...]) -> list[str]:
    found = []
    for index in range(max(len(target), len(exported))):
        there = target[index] if index < len(target) else None
        here = exported[index] if index < len(exported) else None
        if there is not None and here is not None:
            if not _same(there, here):
                found.append(f"{what} {index + 1} is `{_column(there)}` there and `{_column(here)}` in the export")
        elif there is not None:
            found.append(f"it has an extra {what} `{_column(there)}`")
        elif here is not None:
            found.append(f"it lacks the export's {what} `{_column(here)}`")
    return found


def _serde_parameters(storage: StorageFormat) -> dict[str, str]:
    parameters = {key: value for key, value in storage.serde_parameters.items() if key != "path"}
    parameters.setdefault("serialization.format", "1")
    return parameters


def _short(class_name: str | None) -> str:
    return (class_name or "none").rsplit(".", 1)[-1]


def _storage_differences(target: StorageFormat, exported: StorageFormat) -> list[str]:
    if target.format != exported.format:
        return [f"its storage format is {target.format} and the export's is {exported.format}"]
    found = []
    for what, there, here in (("input format", target.input_format, exported.input_format),
                              ("output format", target.output_format, exported.output_format),
                              ("serde", target.serde, exported.serde)):
        if (there or "") != (here or ""):
            found.append(f"its {what} is {_short(there)} and the export's is {_short(here)}")
    there_parameters, here_parameters = _serde_parameters(target), _serde_parameters(exported)
    if there_parameters != here_parameters:
        keys = sorted(key for key in set(there_parameters) | set(here_parameters)
                      if there_parameters.get(key) != here_parameters.get(key))
        found.append("its serde parameters differ from the export's in " + ", ".join(
            f"{key} ({_value(there_parameters, key)} there, {_value(here_parameters, key)} in the export)"
            for key in keys))
    return found


def _value(parameters: Mapping[str, str], key: str) -> str:
    return repr(parameters[key]) if key in parameters else "unset"


def differences(exported: TableDescription, target: TableDescription) -> list[str]:
    """What keeps `target` from taking a partition of `exported`, one clause each; [] when compatible."""
    found = _column_differences("column", target.columns, exported.columns)
    found += _column_differences("partition key", target.partition_columns, exported.partition_columns)
    found += _storage_differences(target.storage, exported.storage)
    return found


def describe_differences(found: list[str]) -> str:
    """The clauses joined for one sentence, the first few spelled out."""
    shown = "; ".join(found[:_MAX_LISTED])
    if len(found) > _MAX_LISTED:
        shown += f"; and {len(found) - _MAX_LISTED} more difference{'s' if len(found) - _MAX_LISTED > 1 else ''}"
    return shown
