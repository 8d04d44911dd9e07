"""The process runner's test repo (runner_repo.py), one per test; test_runner_policy.py shares one per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.process_runner.runner_repo import RunnerRepo, make_runner_repo


@pytest.fixture
def runner_repo(tmp_path: Path) -> RunnerRepo:
    return make_runner_repo(tmp_path)
