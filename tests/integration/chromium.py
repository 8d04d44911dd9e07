"""One real headless Chromium for the whole session (toolkit/devtools/chromium.py), shared by the browser tests of
`toolkit graph`'s page and `toolkit report`'s: Playwright's sync API runs one instance per thread, so a second
session-wide browser started beside the first one fails."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from toolkit.devtools.chromium import CHROMIUM, headless_chromium

if TYPE_CHECKING:  # Playwright is loaded by the tests that ask for a browser
    from playwright.sync_api import Browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install chromium`; `make test` does).")
    with headless_chromium() as launched:
        yield launched
