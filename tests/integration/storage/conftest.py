"""Fixtures of the storage tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    """Two empty local roots, primary and backup: two "clusters"."""
    primary, backup = tmp_path / "primary", tmp_path / "backup"
    primary.mkdir()
    backup.mkdir()
    return primary, backup
