"""A replication run killed with SIGKILL in the middle of the copy or of the publish never leaves a partial
instance where readers look; its lease on the instance blocks a rerun (which names it) until it expires, then
a rerun takes the lease over and completes the instance with the source's exact bytes.

The run is a real separate process running the real action on the pure-Python file system; the harness in
that process counts copies or renames and sends itself SIGKILL at the chosen point (the code under test is
not changed). tests/integration/replication/test_file_replication_hadoop.py kills a real spark-submit."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.replication.test_file_replication import FILES, T, contents, instance, replicate
from tests.unit.retention.retention_repo import make_repo
from toolkit.actions.replication.runner import ReplicationResult
from toolkit.errors import BlockedError

PROJECT = Path(__file__).resolve().parents[3]
KILLED_RUN = """
import os, signal, sys
sys.path.insert(0, {project!r})
from datetime import datetime, timezone
from toolkit.core.entities.repo import ConfigRepo
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.services.runtime.run_context import RunContext
from toolkit.core.storage.local import LocalFileSystem

class Dies(LocalFileSystem):
    copies = renames = 0
    def copy_files(self, tasks, threads=4, preserve_permission=True):
        results = []
        for task in tasks:  # one at a time, so that the kill lands between two files
            if Dies.copies == {copies}:
                os.kill(os.getpid(), signal.SIGKILL)
            results += super().copy_files([task], 1, preserve_permission)
            Dies.copies += 1
        return results
    def rename(self, source, target):
        super().rename(source, target)
        Dies.renames += 1
        if Dies.renames == {renames}:
            os.kill(os.getpid(), signal.SIGKILL)
    def write_atomically(self, path, data):
        if {before_flag} and path.endswith("_SUCCESS"):
            os.kill(os.getpid(), signal.SIGKILL)
        super().write_atomically(path, data)

t = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
run_replication(ConfigRepo.load({repo!r}), "clicks", "backup", ReplicationRequest(t, t, recopy={recopy}),
                RunContext(Dies(), "killed-run", lease_seconds={lease}))
"""

LEASE = 1.5  # the killed run's lease, in seconds: the rerun takes it over once it expired
MANY = {f"part-{k:05d}.json": bytes([65 + k % 26]) * (1000 + k) for k in range(40)}


def _killed(repo: Path, copies: int = -1, renames: int = -1, before_flag: bool = False, recopy: bool = False) -> None:
    code = KILLED_RUN.format(project=str(PROJECT), repo=str(repo), copies=copies, renames=renames,
                             before_flag=before_flag, lease=LEASE, recopy=recopy)
    killed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr


def _after_the_lease(repo: Path, target: Path, recopy: bool = False) -> ReplicationResult:
    """The killed run's lease refuses a rerun (naming it) and is taken over once expired: the rerun's result."""
    before = contents(target.parent)
    with pytest.raises(BlockedError, match=r"being run by run killed-run on \S+:\d+ \(its lease ends "):
        replicate(repo, recopy=recopy)
    assert contents(target.parent) == before  # the blocked rerun touched nothing
    time.sleep(LEASE)
    result = replicate(repo, recopy=recopy)
    record = json.loads(Path(str(result.instances[0].record).removeprefix("file://")).read_text())
    assert re.match(r"run killed-run on \S+:\d+ \(its lease ends ", record["took_over"]), record["took_over"]
    return result


def _readers_view(target: Path, source: Path) -> None:
    """What a reader may see: no instance, or all of it; the flag only on a complete instance."""
    if target.exists():
        assert {k: v for k, v in contents(target).items() if k != "_SUCCESS"} == \
            {k: v for k, v in contents(source).items() if k != "_SUCCESS"}
    assert not (target / "_SUCCESS").exists() or contents(target) == contents(source)


@pytest.mark.parametrize("copies", [0, 1, 17, 39])
def test_killed_in_the_middle_of_the_copy(tmp_path: Path, copies: int) -> None:
    repo, primary = make_repo(tmp_path)
    source = instance(primary, "data/clicks", T, MANY)
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    _killed(repo, copies=copies)
    assert not target.exists()
    staging = target.parent / ".10.replicating"
    assert len(list(staging.iterdir())) == copies  # what was copied stays for the rerun
    rerun = _after_the_lease(repo, target).counters()
    assert (rerun["files_copied"], rerun["files_skipped"]) == (len(MANY) - copies, copies)
    assert contents(target) == contents(source)
    assert not staging.exists()


@pytest.mark.parametrize("point", ["between the swap's renames", "after the swap", "before the flag"])
def test_killed_in_the_middle_of_replacing_a_published_instance(tmp_path: Path, point: str) -> None:
    repo, primary = make_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    (source / "part-00001.json").write_bytes(b"a late correction\n")
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    if point == "before the flag":
        _killed(repo, before_flag=True)
    else:
        _killed(repo, renames=1 if point == "between the swap's renames" else 2)
    _readers_view(target, source)
    _after_the_lease(repo, target)
    assert contents(target) == contents(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]  # no staging or replaced folder left


@pytest.mark.parametrize("point", ["copy 0", "copy 2", "between the swap's renames", "after the swap"])
def test_a_recopy_killed_at_any_step_leaves_the_old_copy_available_and_its_rerun_replaces_it(
        tmp_path: Path, point: str) -> None:
    """`toolkit rerun --feed F --action replication` without --continue (`replication.py --recopy`): a replica whose
    damage its length and time hide is copied again whole. Killed while it copies or after its swap, readers see the
    old copy, flagged, or the new one, flagged, never half of one; killed between the swap's two renames, the
    instance is absent (the old copy set aside whole) until the next run, which puts it back first. The next recopy
    publishes the source's bytes and leaves no staging or replaced folder."""
    repo, primary = make_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    replicate(repo)
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    damaged = target / "part-00000.json"
    stamp = damaged.stat()
    damaged.write_bytes(b"X" * stamp.st_size)  # same length, same time: a plain rerun would keep it
    os.utime(damaged, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    old = contents(target)
    if point.startswith("copy"):
        _killed(repo, copies=int(point.split()[1]), recopy=True)
    else:
        _killed(repo, renames=1 if point == "between the swap's renames" else 2, recopy=True)
    if point == "between the swap's renames":
        assert not target.exists() and contents(target.parent / ".10.replaced") == old
    else:
        assert (target / "_SUCCESS").exists() and contents(target) in (old, contents(source))
    rerun = _after_the_lease(repo, target, recopy=True).counters()
    assert rerun["files_copied"] == len(FILES)
    assert contents(target) == contents(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]
