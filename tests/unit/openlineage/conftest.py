"""The OpenLineage client writes OPENLINEAGE__... variables into os.environ when it reads OPENLINEAGE_URL (its
`_alias_env_vars`): each test here starts and ends without any OPENLINEAGE variable, so none leaks into another."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def no_openlineage_environment() -> Iterator[None]:
    saved = {name: value for name, value in os.environ.items() if name.startswith("OPENLINEAGE")}
    for name in saved:
        del os.environ[name]
    yield
    for name in [name for name in os.environ if name.startswith("OPENLINEAGE")]:
        del os.environ[name]
    os.environ.update(saved)
