"""Partition specs (key -> value) checked and ordered against a table's partition keys, the same way for every
catalog: keys matched case-insensitively, values strings, a full spec gives every key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolkit.core.storage.catalog_records import Partition, TableInfo
from toolkit.core.storage.filesystem import StorageError


def _match_keys(info: TableInfo, spec: Mapping[str, Any], what: str) -> dict[str, str]:
    by_lower = {key.lower(): key for key in info.partition_keys}
    given: dict[str, str] = {}
    for key, value in spec.items():
        name = by_lower.get(str(key).lower())
        if name is None:
            keys = ", ".join(info.partition_keys) or "none"
            raise StorageError(f"{what} names the key {key!r}, which is not a partition key of {info.qualified_name} "
                               f"(its partition keys: {keys}).")
        if value is None or isinstance(value, bool) or not isinstance(value, (str, int)):
            raise StorageError(f"{what} gives {key}={value!r} for {info.qualified_name}: partition values are strings.")
        text = str(value)
        if not text:
            raise StorageError(f"{what} gives an empty value for {key} of {info.qualified_name}: "
                               "partition values cannot be empty.")
        given[name] = text
    return {key: given[key] for key in info.partition_keys if key in given}


def partial_spec_of(info: TableInfo, spec: Mapping[str, Any] | None) -> dict[str, str]:
    """A partial spec's keys matched (case-insensitively) to the table's, in key order; StorageError otherwise."""
    if not info.partition_keys:
        raise StorageError(f"{info.qualified_name} is not partitioned: it has no partitions to list or change.")
    return _match_keys(info, spec or {}, "The partition filter")


def full_spec(info: TableInfo, spec: Mapping[str, Any]) -> dict[str, str]:
    """A spec that gives every partition key of the table, in key order; StorageError otherwise."""
    if not info.partition_keys:
        raise StorageError(f"{info.qualified_name} is not partitioned: it has no partitions to list or change.")
    matched = _match_keys(info, spec, f"The partition {describe_spec(spec)}")
    missing = [key for key in info.partition_keys if key not in matched]
    if missing:
        raise StorageError(f"The partition {describe_spec(spec)} of {info.qualified_name} lacks a value for "
                           f"{', '.join(missing)}: give every partition key ({', '.join(info.partition_keys)}).")
    return matched


def describe_spec(spec: Mapping[str, Any]) -> str:
    """`(ds='2026-11-21', region='eu')`, for messages."""
    return "(" + ", ".join(f"{key}={value!r}" for key, value in spec.items()) + ")"


def matches(values: Mapping[str, str], partial: Mapping[str, str]) -> bool:
    """Whether a partition's values agree with every key a partial spec gives."""
    return all(values.get(key) == value for key, value in partial.items())


def sort_partitions(partitions: Iterable[Partition], keys: tuple[str, ...]) -> list[Partition]:
    """By their values in key order, as `Catalog.list_partitions` answers them."""
    return sorted(partitions, key=lambda p: tuple(p.values.get(key, "") for key in keys))
