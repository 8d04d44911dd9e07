"""One real headless Chromium for the session (toolkit/devtools/chromium.py), for the status pages of `toolkit
report`; screenshots go to test-artifacts/report/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from toolkit.devtools.chromium import CHROMIUM, headless_chromium

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "report"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install chromium`; `make test` does).")
    with headless_chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
