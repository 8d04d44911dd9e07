"""The engines' tests read workflows and applications from the process runner's test repo (runner_repo.py)."""

from __future__ import annotations

from tests.unit.process_runner.conftest import runner_repo

__all__ = ["runner_repo"]
