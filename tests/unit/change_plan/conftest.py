"""The `site` of the plan tests: plan_site.py."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from tests.unit.change_plan.plan_site import NOW
from tests.unit.retention.retention_repo import hourly_instances, make_repo


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the head repo, the base repo, the primary cluster's root) with clicks instances 100, 50 and 5 days old."""
    head, root = make_repo(tmp_path)
    base = tmp_path / "base"
    shutil.copytree(head, base)
    for days in (100, 50, 5):
        hourly_instances(root, NOW - timedelta(days=days), 3)
    return head, base, root
