"""The SQL dialects by datasource type: every `*_dialect.py` module of this package defines one `DIALECT`, so that
teaching the toolkit a database's own SQL is adding its module."""

from __future__ import annotations

from functools import cache

import toolkit.core.storage.jdbc as package
from toolkit.core.storage.jdbc.dialect import SqlDialect
from toolkit.plugins import discover


@cache
def dialects() -> dict[str, SqlDialect]:
    """Every dialect by name."""
    return discover(package, "_dialect", "DIALECT", SqlDialect)


def dialect_for(datasource_type: str) -> SqlDialect:
    """The dialect of a datasource type (the generic one serves every type no module names)."""
    for dialect in dialects().values():
        if datasource_type in dialect.types:
            return dialect
    return dialects()["generic"]
