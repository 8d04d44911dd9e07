"""The columns an import or export takes, by its `fields` (Falcon's): those it `includes`, in their order, or all
but those it `excludes`; names matched whatever their case, as databases fold them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.entities.model import Fields
from toolkit.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def selected(frame: DataFrame, fields: Fields | None, owner: str) -> DataFrame:
    """The columns `fields` takes (`includes`, in their order), or all but those it `excludes`."""
    if fields is None:
        return frame
    by_name = {name.lower(): name for name in frame.columns}
    wanted = fields.includes or fields.excludes
    missing = [name for name in wanted if name.lower() not in by_name]
    if missing:
        raise UsageError(f"{owner}: its fields name {', '.join(repr(name) for name in missing)}, which the rows do "
                         f"not have (their columns: {', '.join(frame.columns)}); correct its fields.")
    if fields.includes:
        return frame.select(*(by_name[name.lower()] for name in fields.includes))
    dropped = {name.lower() for name in fields.excludes}
    return frame.select(*(name for name in frame.columns if name.lower() not in dropped))
