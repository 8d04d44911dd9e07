"""Where the browser tests of the pages of `toolkit graph` keep their screenshots: test-artifacts/graph/ (the browser is
tests/integration/chromium.py's, shared by the session)."""

from __future__ import annotations

from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "graph"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
