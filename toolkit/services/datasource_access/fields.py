"""The columns an import or export takes, by its `fields` (Falcon's): those it `includes`, in their order, or all
but those it `excludes`; names matched whatever their case, as databases fold them (`spelled_as`, which every
column a definition names goes through: fields, an import's check and split columns, an export's update key)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolkit.core.entities.model import Fields
from toolkit.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def spelled_as(names: Sequence[str], columns: Sequence[str]) -> tuple[list[str], list[str]]:
    """`names` as `columns` spell them (the same name, else the one that differs only in case: a definition's `id`
    is Derby's and Oracle's ID), and the names `columns` do not have."""
    exact = set(columns)
    by_case = {column.lower(): column for column in reversed(columns)}  # the first of those equal but for case
    found, missing = [], []
    for name in names:
        spelled = name if name in exact else by_case.get(name.lower())
        if spelled is None:
            missing.append(name)
        else:
            found.append(spelled)
    return found, missing


def selected(frame: DataFrame, fields: Fields | None, owner: str) -> DataFrame:
    """The columns `fields` takes (`includes`, in their order), or all but those it `excludes`."""
    if fields is None:
        return frame
    wanted, missing = spelled_as(fields.includes or fields.excludes, frame.columns)
    if missing:
        raise UsageError(f"{owner}: its fields name {', '.join(repr(name) for name in missing)}, which the rows do "
                         f"not have (their columns: {', '.join(frame.columns)}); correct its fields.")
    if fields.includes:
        return frame.select(*wanted)
    return frame.select(*(name for name in frame.columns if name not in wanted))
