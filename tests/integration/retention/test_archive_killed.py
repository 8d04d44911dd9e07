"""A retention run with `action: archive` killed with SIGKILL after N file-system operations (copies, renames,
deletes; one kill in the middle of a batch of copies, a file half written), for several N: at the kill every
file of the feed is, byte for byte, in the feed or in the archive; a rerun ends with the tree an uninterrupted
run leaves, and no staging copy left.

The run is a real separate process running the real action on the pure-Python file system; the test harness in
that process counts operations and sends itself SIGKILL after the N-th (the code under test is not changed)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.retention.archive_repo import contents, make_archive_repo
from tests.unit.retention.retention_repo import hourly_instances, plant_decoys, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
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
    operations = 0

    def _count(self):
        DiesAfter.operations += 1
        return DiesAfter.operations == {n}

    def copy_files(self, tasks, threads=4, preserve_permission=True):
        if self._count() and len(tasks) > 1:  # die mid-batch: half copied, the next file half written
            super().copy_files(tasks[: len(tasks) // 2], threads, preserve_permission)
            cut = tasks[len(tasks) // 2]
            with open(cut.source.removeprefix("file://"), "rb") as source:
                data = source.read()
            os.makedirs(os.path.dirname(cut.target.removeprefix("file://")), exist_ok=True)
            with open(cut.target.removeprefix("file://"), "wb") as target:
                target.write(data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        done = super().copy_files(tasks, threads, preserve_permission)
        self._die_if_counted(DiesAfter.operations == {n})
        return done

    def rename(self, source, target):
        super().rename(source, target)
        self._die_if_counted(self._count())

    def delete(self, path, *, recursive):
        done = super().delete(path, recursive=recursive)
        self._die_if_counted(self._count())
        return done

    def _die_if_counted(self, counted):
        if counted:
            os.kill(os.getpid(), signal.SIGKILL)

run_retention(ConfigRepo.load({repo!r}), "clicks", "primary", datetime(2026, 4, 1, 10, tzinfo=timezone.utc),
              RunContext(DiesAfter(), lease_seconds={lease}))
"""


def _prepared(folder: Path) -> tuple[Path, Path]:
    repo, root = make_archive_repo(folder)
    hourly_instances(root, utc(2025, 12, 30, 0), 24 * 3)  # expired up to 2026-01-01T09:00Z: 58 instances
    for hour in (root / "data/clicks/2025/12/30").iterdir():
        (hour / "nested").mkdir()
        (hour / "nested" / "part-1.bin").write_bytes(bytes(range(256)) * 64 * (int(hour.name) + 1))
    plant_decoys(root)
    return repo, root


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    repo, root = _prepared(tmp_path_factory.mktemp("reference"))
    run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(LocalFileSystem()))
    return {p for p in tree(root) if not p.startswith("feed-toolkit")}


def _nothing_lost(root: Path, before: dict[str, bytes]) -> None:
    """Every file of the feed as it was is in the feed or at its archive path, with the same bytes."""
    data, archived = contents(root, "data"), contents(root, "archive/data")
    lost = [path for path, content in before.items() if data.get(path) != content and archived.get(path) != content]
    assert lost == [], lost[:5]


# 4 operations an instance (copy batch, rename, delete of the source; 1, 2, 3 are the first instance's);
# 66 is a copy batch of a December 30th hour (several files): it dies with a file half written.
@pytest.mark.parametrize("n", [1, 2, 3, 66, 100, 174])
def test_killed_after_n_operations_then_rerun(tmp_path: Path, reference: set[str], n: int) -> None:
    repo, root = _prepared(tmp_path)
    before = contents(root, "data")
    killed = subprocess.run([sys.executable, "-c", KILLED_RUN.format(project=str(PROJECT), n=n, repo=str(repo),
                                                                     lease=LEASE)],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    _nothing_lost(root, before)
    assert contents(root, "archive/data"), "the run died before archiving anything: choose a later N"

    time.sleep(LEASE)  # the killed run's lease expires; the rerun takes it over
    rerun = run_retention(ConfigRepo.load(repo), "clicks", "primary", NOMINAL, RunContext(LocalFileSystem()))
    assert rerun.refused == []
    assert {p for p in tree(root) if not p.startswith("feed-toolkit")} == reference
    assert {**contents(root, "archive/data"), **contents(root, "data")} == before
    assert not [p for p in tree(root) if p.endswith(".archiving")]
