"""`retain --all` retains its file feeds in worker processes forked from the call (cluster_call.py,
toolkit/services/runtime/worker_processes.py): what a feed prints in its worker reaches the call's stdout and stderr, a
worker that dies fails its feeds and no other, and the next call retains them."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.unit.retention import cluster_lake
from tests.unit.retention.retention_repo import tree
from toolkit.actions.retention import cluster_call
from toolkit.core.entities.model import Feed
from toolkit.core.storage.filesystem import StorageError

CALL_TIME = "2025-02-05T00:30Z"
FEEDS = 4
RECORD = "toolkit/working/retention/{feed}/20250205T0000Z.json"


def lake(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """Hourly feeds from 2025-01-01 to 01-08 kept days(30): at CALL_TIME's instant 01-01 to 01-05 are expired."""
    return cluster_lake.lake(tmp_path, FEEDS, hours=24 * 8, limit="days(30)")


def kept(paths: set[str]) -> set[str]:
    return {path for path in paths if path.startswith("data/") and path.split("/")[4:5] >= ["06"]}


def expired_left(paths: set[str]) -> set[str]:
    return {path for path in paths if path.startswith("data/") and ["01"] <= path.split("/")[4:5] <= ["05"]}


def test_each_feed_is_retained_in_a_worker_process_and_its_lines_reach_the_callers_streams(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, root, names = lake(tmp_path)
    caller = os.getpid()
    original = cluster_call.retain_feed

    def in_a_worker(repo: object, feed: Feed, *args: object, **kwargs: object) -> object:
        print(f"{feed.name} in pid {os.getpid()}", file=sys.stderr)
        if feed.name == names[2]:
            raise StorageError(f"Cannot list the folder of {feed.name}: injected.")
        return original(repo, feed, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cluster_call, "retain_feed", in_a_worker)
    code, feeds, summary, err = cluster_lake.retain_all(capsys, repo, "--parallel", "2", time=CALL_TIME)
    pids = {line.split(" in pid ")[0]: int(line.split(" in pid ")[1]) for line in err.splitlines()
            if " in pid " in line}
    assert set(pids) == set(names) and caller not in pids.values() and len(set(pids.values())) <= 2
    assert f"retention: Cannot list the folder of {names[2]}: injected." in err.splitlines()
    assert [(line["entity"], line["status"]) for line in feeds] == [
        (name, "FAILED" if name == names[2] else "SUCCEEDED") for name in names]
    assert (code, summary["feeds_by_status"]) == (1, {"FAILED": 1, "SUCCEEDED": 3})
    assert {path.split("/")[1] for path in expired_left(tree(root))} == {names[2]}


def test_a_worker_that_dies_fails_its_feeds_with_a_sentence_and_the_next_call_retains_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed mid-feed (here it exits as SIGKILL or the OOM killer would end it, without a word): the feeds
    it held, and those not started when the pool broke, are FAILED lines naming the cause, never a traceback or a
    hang; nothing that is not expired is gone, and the next call retains every feed."""
    repo, root, names = lake(tmp_path)
    before = tree(root)
    original = cluster_call.retain_feed

    def dying(repo: object, feed: Feed, *args: object, **kwargs: object) -> object:
        if feed.name == names[1]:
            os._exit(9)
        return original(repo, feed, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cluster_call, "retain_feed", dying)
    code, feeds, summary, err = cluster_lake.retain_all(capsys, repo, "--parallel", "2", "--lease", "0.5",
                                                        time=CALL_TIME)
    failed = {str(line["entity"]): str(line["error"]) for line in feeds if line["status"] == "FAILED"}
    assert names[1] in failed and code == 1 and "Traceback" not in err
    assert failed[names[1]] == (f"the worker process retaining feed '{names[1]}' ended before the feed did "
                                "(BrokenProcessPool); the next call retains it")
    assert str(summary["error"]).startswith(f"{len(failed)} of {len(feeds)} feeds due did not succeed: ")
    assert kept(tree(root)) == kept(before) and names[1] in {path.split("/")[1] for path in expired_left(tree(root))}
    time.sleep(0.6)  # the dead workers' leases expire
    monkeypatch.setattr(cluster_call, "retain_feed", original)
    # With the same lease: a worker the broken pool ended between creating its lock file and writing it leaves an
    # empty one, which holds for the reader's lease after it was made (toolkit/core/ledger/locks.py; seen in CI).
    code, feeds, summary, err = cluster_lake.retain_all(capsys, repo, "--lease", "0.5", time=CALL_TIME)
    again = {str(line["entity"]) for line in feeds}  # a feed whose worker the broken pool ended after its record
    assert names[1] in again and again <= set(failed) and code == 0, err  # was written is not due again
    assert all((root / RECORD.format(feed=name)).is_file() for name in names)
    assert (expired_left(tree(root)), kept(tree(root))) == (set(), kept(before))
