"""A retention run killed with SIGKILL after N deletions, for several N, leaves only expired instances
deleted; its lease blocks a rerun (which names it) until it expires, then a rerun takes the lease over and
ends with the tree an uninterrupted run leaves, and its report lists what was left and whose lease it took.

The run is a real separate process running the real action on the pure-Python file system; the test
harness in that process counts deletions and sends itself SIGKILL after the N-th (the code under test
is not changed)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, plant_decoys, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.el.templates import PathTemplate
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError
from toolkit.services.runtime.run_context import RunContext

PROJECT = Path(__file__).resolve().parents[3]
NOMINAL = utc(2026, 4, 1, 10)
LEASE = 1.5  # the killed run's lease, in seconds: the rerun takes it over once it expired
KILLED_RUN = """
import os, signal, sys
sys.path.insert(0, {project!r})
from toolkit.core.entities.repo import ConfigRepo
from toolkit.actions.retention.runner import run_retention
from toolkit.core.storage.local import LocalFileSystem
from datetime import datetime, timezone
from toolkit.services.runtime.run_context import RunContext

class DiesAfter(LocalFileSystem):
    deletions = 0
    def _delete(self, path, *, recursive, measured=None):  # every deletion, sized (delete_sized) or not
        done = super()._delete(path, recursive=recursive, measured=measured)
        DiesAfter.deletions += 1
        if DiesAfter.deletions == {n}:
            os.kill(os.getpid(), signal.SIGKILL)
        return done

run_retention(ConfigRepo.load({repo!r}), "clicks", "primary", datetime(2026, 4, 1, 10, tzinfo=timezone.utc),
              RunContext(DiesAfter(), run_id="killed-run", lease_seconds={lease}))
"""


def _prepared(folder: Path) -> tuple[Path, Path]:
    repo, root = make_repo(folder)
    hourly_instances(root, utc(2025, 12, 1, 0), 24 * 35)  # expired up to 2026-01-01T09:00Z
    for day in (root / "data/clicks/2025/12").iterdir():  # a note in each December day: hours go one by one
        (day / "notes.txt").write_text("keep\n")
    plant_decoys(root)
    return repo, root


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    repo, root = _prepared(tmp_path_factory.mktemp("reference"))
    run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(LocalFileSystem()))
    return {p for p in tree(root) if not p.startswith("feed-toolkit")}


@pytest.mark.parametrize("n", [1, 25, 400, 744])
def test_killed_after_n_deletions_then_rerun(tmp_path: Path, reference: set[str], n: int) -> None:
    repo, root = _prepared(tmp_path)
    before = tree(root)
    killed = subprocess.run([sys.executable, "-c", KILLED_RUN.format(project=str(PROJECT), n=n, repo=str(repo),
                                                                     lease=LEASE)],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    after_kill = tree(root)
    gone = before - after_kill
    # Only expired things went: December 2025 hours and January 1st before 10:00.
    assert gone and all(p.startswith(("data/clicks/2025/12/", "data/clicks/2026/01/01/0")) for p in gone), \
        sorted(gone)[:5]
    assert not (root / "feed-toolkit/working/retention").exists()  # it died before writing its report

    with pytest.raises(BlockedError, match=r"being run by run killed-run on \S+:\d+ \(its lease ends "):
        run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL,
                      RunContext(LocalFileSystem(), run_id="rerun"))
    assert tree(root) == after_kill  # the blocked rerun touched nothing

    time.sleep(LEASE)
    rerun = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL,
                          RunContext(LocalFileSystem(), run_id="rerun"))
    assert {p for p in tree(root) if not p.startswith("feed-toolkit")} == reference
    report = json.loads((root / "feed-toolkit/working/retention/clicks/20260401T1000Z.json").read_text())
    reported = {item["path"].split("/data/clicks/")[1] for item in report["evicted"]}
    template, utc_zone = PathTemplate("/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"), resolve_zone("UTC")
    instance_times = {p[len("data/clicks/"):]: template.parse("/" + p, utc_zone) for p in after_kill}
    expired_left = {p for p, t in instance_times.items() if t is not None and t < utc(2026, 1, 1, 10)}
    assert reported == expired_left and len(rerun.evicted) == len(expired_left)
    assert re.match(r"run killed-run on \S+:\d+ \(its lease ends ", report["took_over"]), report["took_over"]
