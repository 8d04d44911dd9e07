"""Where the browser tests of the status pages of `toolkit report` keep their screenshots: test-artifacts/report/
(the browser is tests/integration/chromium.py's, shared by the session)."""

from __future__ import annotations

from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "report"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
