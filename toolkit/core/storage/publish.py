"""Publishing staged data: the one "stage, then swap into place" routine of replication, the process runner's
outputs and the Hive import, so that readers see a whole new version or the old one, and a run that may no
longer own its work publishes nothing.

A `Publication` is the steps of one run that make data visible, all or none:
- `swap(staging, target, aside)`: an existing target is renamed aside, then the staging folder into place;
- `move(source, target)`: a rename into a place nothing occupies (a new partition version's directory);
- `write(path, data)`: a flag; `step(apply, undo)`: anything else, such as a metastore partition switch;
- `after(cleanup)`: what only a committed publication may do (delete the replaced version).
Each step first calls the `guard` (the run's lease check: `LeaseKeeper.ensure_held`), so a run whose lease
is lost stops before the step. Renames refuse an existing target in the same call (`FileSystem.rename`), so a
swap never moves a folder into another. When a step raises an error (`Exception`: a storage error, a lost
lease), the steps done so far are undone in reverse order, best effort, and the error goes on: of several
outputs, none stays published. At the end of the `with` block the publication commits: the asides are
deleted and the `after` actions run.

One rule after a crash (a run killed inside a swap leaves its aside version behind; `recover`): an aside is put
back when its target is missing (the kill came between the two renames), and deleted when the target is there
(the new version was in place). A `BaseException` that is not an `Exception` (a KeyboardInterrupt, a kill
simulated in tests) is treated as the kill it stands for: nothing is undone, the next run recovers. A kill
between two outputs' swaps therefore leaves the first one's new version published: the run's record says the
attempt did not succeed, and its rerun publishes every output again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import TracebackType

from toolkit.core.storage.filesystem import FileSystem, StorageError

Guard = Callable[[], None]


def no_guard() -> None:
    """The guard of a caller that holds no lease (a tool run by hand, a test of the storage alone)."""


def recover(fs: FileSystem, target: str, asides: Sequence[str]) -> int:
    """Apply the crash rule to the versions killed swaps moved aside from `target` (oldest first): the last is
    put back when `target` is missing, the others (or all, when `target` is there) are deleted. Call it before
    anything else touches `target`, holding the lock of the work. Returns how many were deleted."""
    remaining = [aside for aside in asides if fs.exists(aside)]
    if remaining and not fs.exists(target):
        fs.rename(remaining.pop(), target)
    for aside in remaining:
        fs.delete(aside, recursive=True)
    return len(remaining)


class Publication:
    """The publishing steps of one run on one file system, undone together when one fails."""

    def __init__(self, fs: FileSystem, guard: Guard = no_guard) -> None:
        self.fs, self.guard = fs, guard
        self._undo: list[Callable[[], object]] = []
        self._after: list[Callable[[], None]] = []

    def __enter__(self) -> Publication:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        elif issubclass(kind, Exception):
            self.roll_back()

    def step(self, apply: Callable[[], object], undo: Callable[[], object]) -> None:
        """Check the guard, `apply`, and remember how to undo it."""
        self.guard()
        apply()
        self._undo.append(undo)

    def move(self, source: str, target: str) -> None:
        """Rename `source` to `target`, which must not exist (StorageError when it does)."""
        self.step(lambda: self.fs.rename(source, target), lambda: self.fs.rename(target, source))

    def swap(self, staging: str, target: str, aside: str) -> bool:
        """Put `staging` in place of `target`; an existing target is renamed to `aside` first and deleted at the
        commit. True when a version was replaced."""
        replaced = self.fs.exists(target)
        if replaced:
            self.move(target, aside)
            self._after.append(lambda: self._forget(aside))
        self.move(staging, target)
        return replaced

    def write(self, path: str, data: bytes) -> None:
        """Write a small file (a flag) atomically; undone by writing back what was there, or deleting it."""
        before = self.fs.read(path) if self.fs.exists(path) else None

        def undo() -> None:
            if before is None:
                self.fs.delete(path, recursive=False)
            else:
                self.fs.write_atomically(path, before)

        self.step(lambda: self.fs.write_atomically(path, data), undo)

    def after(self, cleanup: Callable[[], None]) -> None:
        """Run `cleanup` once everything is published (in the order given)."""
        self._after.append(cleanup)

    def commit(self) -> None:
        """Everything is published: nothing will be undone; the replaced versions go."""
        self._undo.clear()
        cleanups, self._after = self._after, []
        for cleanup in cleanups:
            cleanup()

    def roll_back(self) -> None:
        """Undo the steps done, newest first. An undo that fails is skipped (the error on its way out says what
        went wrong); what it leaves, `recover` puts right on the next run."""
        undo, self._undo = self._undo, []
        self._after.clear()
        for action in reversed(undo):
            try:
                action()
            except StorageError:
                continue

    def _forget(self, aside: str) -> None:
        if self.fs.exists(aside):
            self.fs.delete(aside, recursive=True)


def all_guards(*guards: Guard) -> Guard:
    """One guard that calls each of `guards` (a run's lease and a partition's lease, say)."""

    def guard() -> None:
        for each in guards:
            each()

    return guard
