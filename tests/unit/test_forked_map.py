"""Work shared with forked workers: the same results in the same order as computed alone, a failed or killed worker's
share computed again here (its exception raised here), no fork in a process of several threads or inside a map, no
worker left behind by an interruption."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import running
from tests.unit.forking import allow_forks, calls_here
from toolkit import forked_map as module
from toolkit.core.storage import local
from toolkit.core.storage.filesystem import FileStatus
from toolkit.core.storage.local import LocalFileSystem, _tree_bytes, to_uri
from toolkit.forked_map import forked_map

PARENT = os.getpid()


@pytest.fixture(autouse=True)
def forking_allowed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    allow_forks(monkeypatch)
    yield
    with pytest.raises(ChildProcessError):  # every worker was waited for
        os.waitpid(-1, os.WNOHANG)


def _pid(folder: str) -> int:
    return os.getpid()


def _tree(root: Path, count: int) -> list[str]:
    """`count` instance folders with files of known sizes, a nested folder and a link that counts nothing."""
    folders = []
    for number in range(count):
        folder = root / f"{number:02d}"
        (folder / "nested").mkdir(parents=True)
        (folder / "part-0").write_bytes(b"x" * number)
        (folder / "nested" / "part-1").write_bytes(b"y" * 1000)
        (folder / "link").symlink_to(folder / "nested" / "part-1")
        folders.append(str(folder))
    return folders


def test_forked_sizes_equal_the_serial_ones_in_order(tmp_path: Path) -> None:
    folders = _tree(tmp_path, 9)
    assert forked_map(_tree_bytes, folders) == [number + 1000 for number in range(9)]


def test_the_second_half_is_measured_by_another_process() -> None:
    measured_by = forked_map(_pid, [f"/f{number}" for number in range(10)])
    assert measured_by[:5] == [PARENT] * 5
    assert len(set(measured_by[5:])) == 1 and measured_by[5] != PARENT


def test_shares_of_uneven_length_keep_the_order(monkeypatch: pytest.MonkeyPatch) -> None:
    allow_forks(monkeypatch, cores=4)
    assert forked_map(int, [str(number) for number in range(7)]) == list(range(7))


def test_a_worker_that_fails_has_its_share_measured_here() -> None:
    def only_here(folder: str) -> int:
        if os.getpid() != PARENT:
            raise OSError("the disk went away")
        return len(folder)

    assert forked_map(only_here, ["a", "bb", "ccc", "dddd"]) == [1, 2, 3, 4]


def test_a_worker_killed_has_its_share_measured_here() -> None:
    def killed_elsewhere(folder: str) -> int:
        if os.getpid() != PARENT:
            os.kill(os.getpid(), signal.SIGKILL)
        return os.getpid()

    assert forked_map(killed_elsewhere, ["a", "b", "c", "d"]) == [PARENT] * 4


def test_a_worker_that_writes_less_than_its_share_is_not_believed(monkeypatch: pytest.MonkeyPatch) -> None:
    original = module._write_all
    monkeypatch.setattr(module, "_write_all", lambda pipe, data: original(pipe, data[:-1]))
    assert forked_map(_pid, ["a", "b", "c", "d"]) == [PARENT] * 4


def test_an_exception_a_worker_met_is_raised_here() -> None:
    def refused(folder: str) -> int:
        if folder == "d":
            raise PermissionError(f"{folder}: permission denied")
        return os.getpid()

    with pytest.raises(PermissionError, match="d: permission denied"):
        forked_map(refused, ["a", "b", "c", "d"])


def test_results_that_do_not_pickle_are_computed_here() -> None:
    def unpicklable(folder: str) -> object:
        pid = os.getpid()
        return lambda: pid

    assert [result() for result in forked_map(unpicklable, ["a", "b", "c", "d"])] == [PARENT] * 4


def test_a_map_inside_a_map_forks_nothing_more() -> None:
    def inner(item: str) -> list[int]:
        return forked_map(_pid, [item] * 4)

    results = forked_map(inner, ["a", "b", "c", "d"])
    assert all(len(set(pids)) == 1 for pids in results)
    assert results[0][0] == PARENT and results[3][0] != PARENT


def test_a_worker_runs_with_every_signal_blocked() -> None:
    def blocked(item: str) -> bool:
        return signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])

    assert forked_map(blocked, ["a", "b"]) == [False, True]  # the caller's mask is its own again
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_workers_are_killed_when_this_process_gives_up_not_waited_for() -> None:
    def slow_elsewhere(item: str) -> int:
        if os.getpid() != PARENT:
            time.sleep(60)
        raise LookupError(item)

    began = time.monotonic()
    with pytest.raises(LookupError, match="a"):
        forked_map(slow_elsewhere, ["a", "b"])
    assert time.monotonic() - began < 10


def test_workers_die_with_their_parent(tmp_path: Path) -> None:
    """A map in a forked process, killed with SIGKILL: its worker, busy for a minute, is gone in seconds."""
    said = tmp_path / "worker"
    parent = os.fork()
    if parent == 0:
        code = 1
        try:
            middle = os.getpid()

            def slow_elsewhere(item: str) -> int:
                if os.getpid() != middle:
                    said.write_text(str(os.getpid()))
                    time.sleep(60)
                else:
                    time.sleep(60)
                return 0

            forked_map(slow_elsewhere, ["a", "b"])
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 20
    while not (said.exists() and said.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    worker = int(said.read_text())
    os.kill(parent, signal.SIGKILL)
    os.waitpid(parent, 0)
    deadline = time.monotonic() + 10
    while running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(worker)


def test_a_signal_met_as_the_fork_ends_leaves_no_worker_and_no_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the signals are blocked around a fork is raised when they are unblocked, in this process: the
    worker just forked is killed and reaped, and both ends of its pipe closed."""
    unblock = signal.pthread_sigmask

    def interrupted(how: int, mask: object) -> object:
        if how == signal.SIG_SETMASK:
            unblock(how, mask)
            raise KeyboardInterrupt
        return unblock(how, mask)

    monkeypatch.setattr(module.signal, "pthread_sigmask", interrupted)
    before = sorted(os.listdir("/proc/self/fd"))
    with pytest.raises(KeyboardInterrupt):
        forked_map(_pid, ["a", "b"])
    assert sorted(os.listdir("/proc/self/fd")) == before


def test_alone_forks_nothing() -> None:
    assert forked_map(_pid, ["a", "b", "c", "d"], alone=True) == [PARENT] * 4


def test_no_fork_below_the_threshold_or_beside_another_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    assert forked_map(_pid, ["a", "b", "c", "d"], fork_from=5) == [PARENT] * 4
    monkeypatch.undo()
    monkeypatch.setattr(module.os, "cpu_count", lambda: 2)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert forked_map(_pid, ["a", "b", "c", "d"]) == [PARENT] * 4
    finally:
        stop.set()
        other.join()


def test_an_interrupted_measure_leaves_no_worker_behind() -> None:
    def interrupted(folder: str) -> int:
        if os.getpid() == PARENT:
            raise KeyboardInterrupt
        return 0

    with pytest.raises(KeyboardInterrupt):
        forked_map(interrupted, [f"/f{number}" for number in range(100_000)])


def test_the_local_file_system_sizes_thousands_of_trees_with_the_workers(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "SIZED_APART", 2)
    folders = _tree(tmp_path, 40)
    file = FileStatus(to_uri(str(tmp_path / "00" / "part-0")), 7, 0, False)  # a file's length is its listing's
    entries = [FileStatus(to_uri(folder), 0, 0, True) for folder in folders] + [file]
    expected = {to_uri(folder): number + 1000 for number, folder in enumerate(folders)} | {file.path: 7}
    measured_here = calls_here(monkeypatch, local, "_tree_bytes")
    assert LocalFileSystem().total_sizes(entries) == expected
    assert len(measured_here) == 20  # the worker measured the other half
