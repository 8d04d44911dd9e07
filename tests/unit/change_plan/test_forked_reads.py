"""The feeds of a plan read by forked copies of it (toolkit/forked_map.py) give the plan read by the plan alone, to the
byte, and a copy that dies has its feeds read again by the plan."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from tests.unit.change_plan.plan_site import CLICKS, NOW, edit, plan
from tests.unit.forking import allow_forks, calls_here
from tests.unit.retention.retention_repo import hourly_instances
from toolkit.views.plan import retention_changes

SUMMARY = "feeds/clicks-hourly-summary.yaml"
PARENT = os.getpid()


@pytest.fixture
def two_feeds_shortened(site):
    """The site with clicks shortened to days(30) and clicks-hourly-summary to days(3), both with instances to evict."""
    head, base, root = site
    for days in (20, 10, 5):
        hourly_instances(root, NOW - timedelta(days=days), 2, template="data/clicks-hourly-summary")
    edit(head, CLICKS, "limit: days(90)", "limit: days(30)")
    edit(head, SUMMARY, "limit: days(30)", "limit: days(3)")
    return head, base


def test_feeds_read_by_forked_workers_plan_as_read_alone(two_feeds_shortened, capsys, monkeypatch):
    head, base = two_feeds_shortened
    allow_forks(monkeypatch, cores=1)
    alone = plan(capsys, head, base)
    workers = allow_forks(monkeypatch, cores=2)
    made = calls_here(monkeypatch, retention_changes, "_retention_edited")
    forked = plan(capsys, head, base)
    assert len(workers) == 1 and len(made) == 1  # the other feed's change came from the worker
    assert forked == alone
    assert alone[0] == 1
    assert sorted((c["entity"], c["count"]) for c in alone[1]["changes"] if c["destructive"]) == [
        ("clicks", 3), ("clicks-hourly-summary", 6)]


def test_a_worker_that_dies_has_its_feeds_read_by_the_plan(two_feeds_shortened, capsys, monkeypatch):
    head, base = two_feeds_shortened
    allow_forks(monkeypatch, cores=1)
    alone = plan(capsys, head, base)
    workers = allow_forks(monkeypatch, cores=2)
    edited = retention_changes._retention_edited

    def dying(*args, **kwargs):
        if os.getpid() != PARENT:
            os._exit(9)
        return edited(*args, **kwargs)

    monkeypatch.setattr(retention_changes, "_retention_edited", dying)
    made = calls_here(monkeypatch, retention_changes, "_retention_edited")
    assert plan(capsys, head, base) == alone
    assert len(workers) == 1 and len(made) == 2  # its own feed, and the dead worker's
